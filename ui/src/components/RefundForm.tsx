import { useId, useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { describeError, fieldError, formatMoney, parseAmount } from "../api";
import { useDialog } from "../focus";

/** Confirms a refund of all that is `left` (cents of `currency`) or a part typed as people write
 *  amounts ("12,50", "1.234,56"), checked before anything is sent, then sends `amount` (none for
 *  all that is left). Orders and subscription invoices refund alike. */
export function RefundForm({ left, currency, recipient, send, onRefunded, onCancel }: {
  left: number;
  currency: string;
  /** Who gets the money back, for the question ("to ada@example.com"). */
  recipient: string;
  send: (amount: number | null) => Promise<unknown>;
  onRefunded: () => void;
  onCancel: () => void;
}) {
  const inputId = useId();
  const [part, setPart] = useState("");
  const amount = part.trim() ? parseAmount(part) : left;
  const problem =
    amount === null ? "is not an amount (for example 12.50 or 12,50)" : amount < 1 ? "must be more than nothing" : amount > left ? `is more than is left (${formatMoney(left, currency)})` : null;
  const refund = useMutation({
    mutationFn: () => send(part.trim() ? amount : null),
    onSuccess: () => {
      setPart("");
      onRefunded();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!problem) refund.mutate();
  };
  const shown = problem ? "" : formatMoney(amount ?? left, currency);
  const cancel = () => {
    if (refund.isPending) return;
    refund.reset();
    onCancel();
  };
  // The caret goes to the amount; Escape keeps the order as is.
  const dialog = useDialog<HTMLDivElement>(cancel);
  return (
    <div ref={dialog} role="alertdialog" aria-label="Refund">
      <form className="callout stack" onSubmit={submit} noValidate>
        <p>
          {shown ? `Refund ${shown} to ${recipient}?` : `Refund to ${recipient}?`} Lemon Squeezy returns the money to the customer; it
          cannot be undone.
        </p>
        <label htmlFor={inputId}>Part only (optional; up to {formatMoney(left, currency)})</label>
        <input id={inputId} className="refund-part" inputMode="decimal" placeholder={formatMoney(left, currency)} value={part} onChange={(e) => setPart(e.target.value)} />
        {part.trim() && problem && <p className="error">Amount {problem}</p>}
        {fieldError(refund.error, "amount") && <p className="error">Amount {fieldError(refund.error, "amount")}</p>}
        {refund.isError && !fieldError(refund.error, "amount") && <p className="error" role="alert">{describeError(refund.error)}</p>}
        <div className="row">
          <button type="button" onClick={cancel}>Keep as is</button>
          <button type="submit" className="primary" disabled={refund.isPending || problem !== null}>{refund.isPending ? "Refunding…" : "Refund"}</button>
        </div>
      </form>
    </div>
  );
}
