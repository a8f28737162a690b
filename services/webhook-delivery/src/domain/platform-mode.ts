/** `sandbox` (the default) simulates the outside world; `production` talks to it. */
export type PlatformMode = 'sandbox' | 'production';
