import { useEffect, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { listen } from "@tauri-apps/api/event";
import { api, describeError } from "./api";
import type { User } from "./types";
import { Login } from "./screens/Login";
import { FirstAdmin } from "./screens/FirstAdmin";
import { Shell } from "./screens/Shell";
import { useSessionRefresh } from "./session";
import { useTeamServerReach } from "./reach";
import { TeamServerBanner } from "./components/TeamServerBanner";

export function App() {
  const queryClient = useQueryClient();
  const info = useQuery({ queryKey: ["app-info"], queryFn: api.appInfo });
  const current = useQuery({ queryKey: ["current-user"], queryFn: api.currentUser });
  const [user, setUser] = useState<User | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [joinTeam, setJoinTeam] = useState(false);
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
  const signedInAs = (u: User) => {
    setNotice(null);
    setUser(u);
    // Where the app is now signed in (this computer or a team server) changes what it shows.
    void info.refetch();
  };

  if (info.isPending || current.isPending) {
    return <main className="auth-page" aria-busy="true"><p className="muted">Starting Staffroom…</p></main>;
  }
  if (info.isError) {
    return (
      <main className="auth-page">
        <p className="error" role="alert">{describeError(info.error)}</p>
      </main>
    );
  }
  if (signedIn) {
    return (
      <Shell
        info={info.data}
        user={signedIn}
        onSignedOut={() => {
          setUser(null);
          queryClient.setQueryData(["current-user"], null);
        }}
      />
    );
  }
  if (info.data.needsFirstAdmin && !info.data.useTeamServer && !joinTeam) {
    return <FirstAdmin onCreated={signedInAs} onJoinTeam={() => setJoinTeam(true)} />;
  }
  return (
    <>
      <TeamServerBanner />
      {notice && <div className="banner" role="status">{notice}</div>}
      <Login info={info.data} joinTeam={joinTeam} onSignedIn={signedInAs} />
    </>
  );
}
