import { useId, type ReactNode } from "react";

/** A figure and what it is ("$84.00" · "Net revenue"), named by both in the order they are
 *  shown, so a speech user can say what they see; a click opens its screen when it has one. */
export function FigureCard({ value, label, onOpen, className = "", valueClass = "" }: {
  value: ReactNode;
  label: ReactNode;
  onOpen?: () => void;
  className?: string;
  valueClass?: string;
}) {
  const id = useId();
  const parts = (
    <>
      <span id={`${id}-value`} className={`figure-value ${valueClass}`.trim()}>{value}</span>{" "}
      <span id={`${id}-label`} className="muted small">{label}</span>
    </>
  );
  const classes = `card figure ${className}`.trim();
  if (onOpen) return <button type="button" className={classes} onClick={onOpen}>{parts}</button>;
  return <div className={classes} role="group" aria-labelledby={`${id}-value ${id}-label`}>{parts}</div>;
}
