// What the signed-in person may do, from the operations' own declarations (ops.ts, generated
// from each operation's access): a control for an admin-only operation shows for admins only,
// and no screen writes its own role check.
import { ADMIN_ONLY, type Operations } from "./ops";
import type { User } from "./types";

/** Whether `user` may call `op`. */
export function can(user: Pick<User, "role">, op: keyof Operations): boolean {
  return user.role === "admin" || !ADMIN_ONLY.has(op);
}
