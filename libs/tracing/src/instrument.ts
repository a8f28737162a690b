/**
 * Imported first by every service's entry point (`import '@platform/tracing/dist/instrument'`
 * on the first line of main.ts, so the compiled CommonJS requires it before any
 * other module): registers the standard instrumentations (instrumentations.ts)
 * when spans are exported, before pg, ioredis and node:http are required by
 * anything else. It reads the variable itself because configuration is read
 * later; the service's configuration check still refuses an endpoint that is
 * not an http(s) URL, before anything is served.
 */
import { registerStandardInstrumentations } from './instrumentations';

registerStandardInstrumentations(process.env.OTEL_EXPORTER_OTLP_ENDPOINT);
