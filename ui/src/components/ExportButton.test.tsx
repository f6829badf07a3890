import { describe, expect, it } from "vitest";
import { act, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { emit } from "@tauri-apps/api/event";
import { ExportButton } from "./ExportButton";
import { mockCommands, renderWithQuery } from "../test/render";

describe("ExportButton", () => {
  it("sends the list's filters (none empty), shows the rows written as they come, then where the file went", async () => {
    let finish: (value: unknown) => void = () => {};
    const calls = mockCommands({ export_csv: () => new Promise((resolve) => (finish = resolve)) });
    renderWithQuery(<ExportButton list="orders" noun="orders" filters={{ search: "", status: "refunded", from: null, to: "2026-02-01" }} />);
    await userEvent.click(screen.getByRole("button", { name: "Export CSV" }));
    expect(calls.find((c) => c.cmd === "export_csv")?.args).toEqual({ list: "orders", filters: { status: "refunded", to: "2026-02-01" } });
    expect(screen.getByRole("button", { name: "Export CSV" })).toBeDisabled();
    expect(await screen.findByText("Exporting orders…")).toBeInTheDocument();

    await act(() => emit("export-progress", { list: "customers", rows: 9, total: 9 }));
    await act(() => emit("export-progress", { list: "orders", rows: 500, total: 1212 }));
    expect(await screen.findByText("Exported 500 of 1,212 orders")).toBeInTheDocument();
    const bar = screen.getByRole("progressbar");
    expect(bar).toHaveAttribute("value", "500");
    expect(bar).toHaveAttribute("max", "1212");

    await act(async () => finish({ path: "/home/ada/orders-2026-11-28.csv", rows: 1212 }));
    expect(await screen.findByText("Saved 1,212 orders to /home/ada/orders-2026-11-28.csv")).toHaveAttribute("role", "status");
    expect(screen.queryByRole("progressbar")).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Export CSV" })).toBeEnabled();
  });

  it("says nothing when the dialog is cancelled, and why when the export fails", async () => {
    let answer: () => unknown = () => ({ path: null, rows: 0 });
    mockCommands({ export_csv: () => answer() });
    renderWithQuery(<ExportButton list="customers" noun="customers" filters={{}} />);
    await userEvent.click(screen.getByRole("button", { name: "Export CSV" }));
    expect(screen.queryByRole("status")).not.toBeInTheDocument();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();

    answer = () => {
      throw { code: "invalid_request", message: "Check the fields", details: { fields: [{ field: "path", message: "could not be written (/x.csv): Permission denied" }] } };
    };
    await userEvent.click(screen.getByRole("button", { name: "Export CSV" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("The export failed");
  });
});
