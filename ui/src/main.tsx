import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { App } from "./App";
import { Editor } from "./screens/Editor";
import { applyTheme, storedTheme } from "./theme";
import "./styles.css";

applyTheme(storedTheme());
// Editor windows open this page with ?editor=<document id>.
const editorId = new URLSearchParams(window.location.search).get("editor");
const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      {editorId ? <Editor id={editorId} /> : <App />}
    </QueryClientProvider>
  </StrictMode>,
);
