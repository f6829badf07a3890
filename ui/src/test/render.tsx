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
  teamServer: null,
  useTeamServer: false,
  signedInTo: null,
};

export const realInfo: AppInfo = { ...sandboxInfo, sandbox: false, demo: null };

type Handler = (request: Record<string, unknown>) => unknown;

/** Mocks the operations the desktop's `call` command runs (and Tauri's own commands), by name;
 *  a handler that throws rejects the call with what it threw. Each call is recorded as
 *  `{cmd: operation, args: request}`. */
export function mockCommands(handlers: Record<string, Handler>) {
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  mockIPC(
    (cmd, args) => {
      // Operations by their name; Tauri's own commands (a window's close) by theirs.
      const { op, request } =
        cmd === "call"
          ? (args as { op: string; request?: Record<string, unknown> })
          : { op: cmd, request: args as Record<string, unknown> | undefined };
      calls.push({ cmd: op, args: request ?? {} });
      const handler = handlers[op];
      if (!handler) throw { code: "not_found", message: `no mock for ${op}` };
      return handler(request ?? {});
    },
    // Events (listen/emit) go through Tauri's own in-memory mock.
    { shouldMockEvents: true },
  );
  return calls;
}
