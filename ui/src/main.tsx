import { lazy, StrictMode, Suspense } from "react";
import { createRoot } from "react-dom/client";
import "./effects";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { App } from "./App";
import { applyTheme, storedTheme } from "./theme";
import { measureInteractions } from "./perf";
import "./styles.css";

// The editor (ProseMirror and its schema) loads only in an editor window: the main window's
// bundle stays without it.
const Editor = lazy(() => import("./screens/Editor").then((m) => ({ default: m.Editor })));

applyTheme(storedTheme());
// Editor windows open this page with ?editor=<document id>.
const editorId = new URLSearchParams(window.location.search).get("editor");
const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
});

const root = document.getElementById("root")!;
if (!editorId) measureInteractions(root, queryClient);

createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      {editorId ? (
        <Suspense fallback={<main className="editor"><p className="muted">Opening the document…</p></main>}>
          <Editor id={editorId} />
        </Suspense>
      ) : (
        <App />
      )}
    </QueryClientProvider>
  </StrictMode>,
);
