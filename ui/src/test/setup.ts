import "../effects";
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

// jsdom lays nothing out; the editor (ProseMirror) asks where the caret is to scroll it into
// view. An empty answer means "nowhere to scroll".
const noRects = () => ({ length: 0, item: () => null, [Symbol.iterator]: [][Symbol.iterator] }) as unknown as DOMRectList;
const zeroRect = () => ({ x: 0, y: 0, top: 0, left: 0, right: 0, bottom: 0, width: 0, height: 0, toJSON: () => ({}) }) as DOMRect;
Range.prototype.getClientRects ??= noRects;
Range.prototype.getBoundingClientRect ??= zeroRect;
Element.prototype.getClientRects ??= noRects;
