import { useEffect } from "react";
import { api } from "./api";

/** Tokens live 15 minutes: refresh every 10 while the person has used the app in the last 25. */
const REFRESH_EVERY_MS = 10 * 60 * 1000;
const ACTIVE_WITHIN_MS = 25 * 60 * 1000;

export function useSessionRefresh(signedIn: boolean) {
  useEffect(() => {
    if (!signedIn) return;
    let lastActivity = Date.now();
    const mark = () => {
      lastActivity = Date.now();
    };
    const events = ["keydown", "pointerdown", "wheel"] as const;
    events.forEach((e) => window.addEventListener(e, mark, { passive: true }));
    const timer = window.setInterval(() => {
      // An idle person is left to the server's idle limit; a failure emits session-expired.
      if (Date.now() - lastActivity < ACTIVE_WITHIN_MS) void api.refreshSession().catch(() => undefined);
    }, REFRESH_EVERY_MS);
    return () => {
      window.clearInterval(timer);
      events.forEach((e) => window.removeEventListener(e, mark));
    };
  }, [signedIn]);
}
