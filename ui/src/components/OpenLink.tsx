// A button that opens a link in the system browser: through the app's `open_link`, which checks
// the link in Rust first (a receipt on Lemon Squeezy's hosts, a document on Google's, …). A link
// refused says why beside the button.
import { useState, type ReactNode } from "react";
import { api, describeError } from "../api";
import type { LinkKind } from "../types";

export function OpenLinkButton(props: {
  url: string;
  kind: LinkKind;
  children: ReactNode;
  className?: string;
  label?: string;
}) {
  const [refused, setRefused] = useState<string | null>(null);
  const open = () => {
    setRefused(null);
    api.openLink({ url: props.url, kind: props.kind }).catch((error: unknown) => setRefused(describeError(error)));
  };
  return (
    <>
      <button type="button" className={props.className} onClick={open} aria-label={props.label}>{props.children}</button>
      {refused && <span role="alert" className="error inline">{refused}</span>}
    </>
  );
}
