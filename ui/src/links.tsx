// Where each thing lives in the app (the hash routes of Shell), and links to them, so that a
// customer's name anywhere opens their page, and the back button goes back.
import type { ReactNode } from "react";
import { Link } from "wouter";

export const paths = {
  area: (area: string) => `/${area}`,
  order: (id: string) => `/orders/${encodeURIComponent(id)}`,
  customer: (id: string) => `/customers/${encodeURIComponent(id)}`,
  subscription: (id: string) => `/subscriptions/${encodeURIComponent(id)}`,
};

/** A customer's name or e-mail that opens their page (plain text when the provider gave no id). */
export function CustomerLink({ id, children }: { id: string | null | undefined; children: ReactNode }) {
  if (!id) return <>{children}</>;
  return <Link href={paths.customer(id)} className="link-text">{children}</Link>;
}
