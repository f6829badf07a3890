import { Suspense, useEffect, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { listen } from "@tauri-apps/api/event";
import { api, describeError } from "./api";
import type { User } from "./types";
import { Login } from "./screens/Login";
import { onDemand, preloadWhenIdle } from "./onDemand";
import { useSessionRefresh } from "./session";
import { useTeamServerReach } from "./reach";
import { TeamServerBanner } from "./components/TeamServerBanner";

// The sign-in window loads only the sign-in screen; the signed-in app and the first-run screen
// load on demand, and the app (with the Overview it opens on) is preloaded while the form waits.
const shell = () => import("./screens/Shell");
const Shell = onDemand(() => shell().then((m) => m.Shell));
/** The Overview, which the app opens on after signing in. */
const overview = { preload: () => shell().then((m) => m.Overview.preload()) };
const FirstAdmin = onDemand(() => import("./screens/FirstAdmin").then((m) => m.FirstAdmin));
const starting = <main className="auth-page" aria-busy="true"><p className="muted">Starting Staffroom…</p></main>;

export function App() {
  const queryClient = useQueryClient();
  const info = useQuery({ queryKey: ["app-info"], queryFn: api.appInfo });
  const current = useQuery({ queryKey: ["current-user"], queryFn: api.currentUser });
  const [user, setUser] = useState<User | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [joinTeam, setJoinTeam] = useState(false);
  // The first admin was just made on this computer: in real mode, the set-up comes next.
  const [firstRun, setFirstRun] = useState(false);
  const signedIn = user ?? current.data ?? null;

  useEffect(() => {
    const stop = listen("session-expired", () => {
      setUser(null);
      queryClient.setQueryData(["current-user"], null);
      setNotice("Your session has ended; sign in again.");
    });
    return () => {
      void stop.then((unlisten) => unlisten());
    };
  }, [queryClient]);
  useSessionRefresh(Boolean(signedIn));
  useTeamServerReach();
  useEffect(() => preloadWhenIdle([Shell, overview]), []);
  const signedInAs = (u: User) => {
    setNotice(null);
    setUser(u);
    // Where the app is now signed in (this computer or a team server) changes what it shows.
    void info.refetch();
  };

  if (info.isPending || current.isPending) return starting;
  if (info.isError) {
    return (
      <main className="auth-page">
        <p className="error" role="alert">{describeError(info.error)}</p>
      </main>
    );
  }
  if (signedIn) {
    return (
      <Suspense fallback={starting}>
        <Shell
          info={info.data}
          user={signedIn}
          onSignedOut={() => {
            setUser(null);
            queryClient.setQueryData(["current-user"], null);
          }}
          startAt={firstRun && !info.data.sandbox ? "setup" : undefined}
        />
      </Suspense>
    );
  }
  if (info.data.needsFirstAdmin && !info.data.useTeamServer && !joinTeam) {
    return (
      <Suspense fallback={starting}>
        <FirstAdmin
          onCreated={(u) => {
            setFirstRun(true);
            signedInAs(u);
          }}
          onJoinTeam={() => setJoinTeam(true)}
        />
      </Suspense>
    );
  }
  return (
    <>
      <TeamServerBanner />
      {notice && <div className="banner" role="status">{notice}</div>}
      <Login info={info.data} joinTeam={joinTeam} onSignedIn={signedInAs} />
    </>
  );
}
