/** Polls `probe` until it returns a value other than undefined/false, or fails after timeoutMs. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as T;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
  throw new Error(
    `timed out waiting for ${options.what ?? 'condition'}${lastError ? `: ${(lastError as Error).message}` : ''}`,
  );
}
