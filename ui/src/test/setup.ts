import "@testing-library/jest-dom/vitest";
import { afterEach } from "vitest";
import { cleanup } from "@testing-library/react";
import { clearMocks } from "@tauri-apps/api/mocks";

// jsdom has no WebCrypto by default; Tauri's IPC mocks need getRandomValues.
if (!globalThis.crypto?.getRandomValues) {
  const { webcrypto } = await import("node:crypto");
  Object.defineProperty(globalThis, "crypto", { value: webcrypto });
}

afterEach(async () => {
  cleanup();
  // Let unmounted components finish unlistening before the IPC mocks go away.
  await new Promise((resolve) => setTimeout(resolve, 0));
  clearMocks();
  localStorage.clear();
});
