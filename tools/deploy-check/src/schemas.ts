/**
 * Offline validation of rendered objects against the Kubernetes OpenAPI schemas
 * (the npm package kubernetes-models), KEDA's CRD schemas (@kubernetes-models/keda)
 * and cert-manager's (@kubernetes-models/cert-manager), both generated from the
 * projects' CustomResourceDefinitions; the Prometheus Operator's kinds by hand
 * (monitoring-shapes.ts).
 * Only the kinds listed here may appear in deploy/: a new kind must be added on
 * purpose, with its schema.
 *
 * These schemas, like the API server's, allow unknown fields; a misspelt field
 * is caught by the presence checks in manifests.spec.ts for the fields that
 * matter, and by the API server's strict field validation at apply time.
 */
import { Certificate } from '@kubernetes-models/cert-manager/cert-manager.io/v1/Certificate';
import { ClusterIssuer } from '@kubernetes-models/cert-manager/cert-manager.io/v1/ClusterIssuer';
import { TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { prometheusRuleProblems, serviceMonitorProblems } from './monitoring-shapes';
import type { K8sObject } from './repository';

type Validatable = new (data: never) => { validate(): void };

const MODELS: Record<string, Validatable> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'keda.sh/v1alpha1/TriggerAuthentication': TriggerAuthentication,
  'cert-manager.io/v1/Certificate': Certificate,
  'cert-manager.io/v1/ClusterIssuer': ClusterIssuer,
};

/** Kinds without a schema package, checked by hand. */
const SHAPES: Record<string, (object: K8sObject) => string[]> = {
  'monitoring.coreos.com/v1/ServiceMonitor': serviceMonitorProblems,
  'monitoring.coreos.com/v1/PrometheusRule': prometheusRuleProblems,
};

export const KNOWN_KINDS = [...Object.keys(MODELS), ...Object.keys(SHAPES)];

/** Why the object does not match its schema; empty when it does. */
export function schemaProblems(object: K8sObject): string[] {
  const shape = SHAPES[`${object.apiVersion}/${object.kind}`];
  if (shape) return typeof object.metadata?.name === 'string' ? shape(object) : ['metadata.name: missing'];
  const model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!model) return [`no schema for ${object.apiVersion} ${object.kind} (known: ${KNOWN_KINDS.join(', ')})`];
  try {
    new model(object as never).validate();
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}
