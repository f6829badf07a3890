// The UI's one way to the app: the typed client generated from the operations' declarations
// (./ops.ts), over the desktop's `call` command. Every rejection is the core's error object.
import { invoke } from "@tauri-apps/api/core";
import { client, type Call } from "./ops";
import type { ApiError } from "./types";
import { reportOutage } from "./reach";

export function isApiError(value: unknown): value is ApiError {
  return typeof value === "object" && value !== null && "code" in value && "message" in value;
}

/** Calls an operation; anything thrown becomes an ApiError. */
const call: Call = async (op, request) => {
  try {
    return await invoke("call", { op, request });
  } catch (error) {
    if (isApiError(error)) {
      const server = error.details?.teamServer;
      if (error.code === "unavailable" && typeof server === "string") reportOutage({ server, message: error.message });
      throw error;
    }
    const message = typeof error === "string" ? error : "The app did not answer; restart Staffroom";
    throw { code: "internal", message } satisfies ApiError;
  }
};

export const api = client(call);

/** Money in minor units as people read it. */
export function formatMoney(cents: number, currency: string): string {
  return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(cents / 100);
}

/** An amount as the user typed it ("12,50", "12.50", "1.234,5" or "1,234.5"), in minor units of
 *  a two-decimal currency; null when it is not one. The last "," or "." is the decimal mark when
 *  one or two digits follow it; other marks group thousands. */
export function parseAmount(text: string): number | null {
  const trimmed = text.trim().replace(/[\s\u00a0\u202f']/g, "");
  if (!/^\d[\d.,]*$/.test(trimmed)) return null;
  const mark = Math.max(trimmed.lastIndexOf(","), trimmed.lastIndexOf("."));
  const decimals = mark >= 0 ? trimmed.length - mark - 1 : 0;
  const [whole, fraction] = mark >= 0 && decimals <= 2 ? [trimmed.slice(0, mark), trimmed.slice(mark + 1)] : [trimmed, ""];
  // The decimal mark is not also a thousands mark ("12,345,6" is not an amount).
  if (whole !== trimmed && whole.includes(trimmed[mark])) return null;
  const digits = whole.replace(/[.,]/g, "");
  if (!/^\d+$/.test(digits) || (whole !== digits && !/^\d{1,3}([.,]\d{3})*$/.test(whole))) return null;
  return Number(digits) * 100 + Number(fraction.padEnd(2, "0") || "0");
}

/** An error as a sentence with its code, for people. */
export function describeError(error: unknown): string {
  if (!isApiError(error)) return "Something went wrong.";
  const fields = error.details?.fields;
  if (error.code === "invalid_request" && fields && fields.length > 1) {
    return fields.map((f) => `${f.field} ${f.message}`).join("; ") + ` (${error.code})`;
  }
  return `${error.message} (${error.code})`;
}

/** The message for one field of an invalid_request error, if any. */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!isApiError(error)) return undefined;
  return error.details?.fields?.find((f) => f.field === field)?.message;
}
