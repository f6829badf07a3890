import "@testing-library/jest-dom/vitest";
import { afterEach } from "vitest";
import { cleanup } from "@testing-library/react";
import { clearMocks } from "@tauri-apps/api/mocks";

afterEach(async () => {
  cleanup();
  // Let unmounted components finish unlistening before the IPC mocks go away.
  await new Promise((resolve) => setTimeout(resolve, 0));
  clearMocks();
  localStorage.clear();
  // Screens keep what is open in the location (an order, a customer): each test starts at none.
  window.history.replaceState(null, "", "/");
  window.location.hash = "";
});
