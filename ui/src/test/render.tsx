import type { ReactElement } from "react";
import { render } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { mockIPC } from "@tauri-apps/api/mocks";
import type { AppInfo } from "../types";

/** Renders with a fresh query client (no retries, as in the app). */
export function renderWithQuery(ui: ReactElement) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return render(<QueryClientProvider client={client}>{ui}</QueryClientProvider>);
}

export const sandboxInfo: AppInfo = {
  version: "0.1.0",
  sandbox: true,
  demo: { email: "demo@staffroom.test", password: "sandbox-demo-passphrase" },
  needsFirstAdmin: false,
};

export const realInfo: AppInfo = { ...sandboxInfo, sandbox: false, demo: null };

type Handler = (args: Record<string, unknown>) => unknown;

/** Mocks the desktop commands; a handler that throws rejects the invoke with what it threw. */
export function mockCommands(handlers: Record<string, Handler>) {
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  mockIPC(
    (cmd, args) => {
      calls.push({ cmd, args: (args ?? {}) as Record<string, unknown> });
      const handler = handlers[cmd];
      if (!handler) throw { code: "not_found", message: `no mock for ${cmd}` };
      return handler((args ?? {}) as Record<string, unknown>);
    },
    // Events (listen/emit) go through Tauri's own in-memory mock.
    { shouldMockEvents: true },
  );
  return calls;
}
