import { describe, expect, it } from "vitest";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { FromTemplate } from "./FromTemplate";
import { mockCommands, renderWithQuery } from "../test/render";

const templates = {
  folderId: "fld_templates",
  templates: [
    { id: "tplWelcome", name: "Welcome letter", placeholders: ["today", "customer.name"] },
    { id: "tplOrder", name: "Order confirmation", placeholders: ["order.number", "order.total"] },
  ],
};

describe("FromTemplate", () => {
  it("makes the document from the chosen template for the customer, named after both, and opens it", async () => {
    const calls = mockCommands({
      list_templates: () => templates,
      create_from_template: (request) => ({ document: { id: "docNew", name: request.name } }),
      open_editor: () => null,
    });
    renderWithQuery(<FromTemplate madeFor={{ customerId: "cus_1", label: "Zoë Martin" }} />);
    await userEvent.click(screen.getByRole("button", { name: "New document from template" }));
    await userEvent.selectOptions(await screen.findByLabelText("Template"), "Welcome letter");
    expect(screen.getByText("Fills {{today}}, {{customer.name}}")).toBeInTheDocument();
    expect(screen.getByLabelText("Name")).toHaveAttribute("placeholder", "Welcome letter — Zoë Martin");
    await userEvent.selectOptions(screen.getByLabelText("Invite the customer"), "As a commenter");
    await userEvent.click(screen.getByRole("button", { name: "Make and open" }));
    expect(calls.find((c) => c.cmd === "create_from_template")?.args).toEqual({
      templateId: "tplWelcome",
      name: "Welcome letter — Zoë Martin",
      customerId: "cus_1",
      orderId: null,
      subscriptionId: null,
      shareWith: "commenter",
    });
    expect(calls.find((c) => c.cmd === "open_editor")?.args).toEqual({ id: "docNew", name: "Welcome letter — Zoë Martin" });
    expect(await screen.findByRole("button", { name: "New document from template" })).toBeInTheDocument();
  });

  it("names the placeholders that cannot be filled, and says when no folder is chosen", async () => {
    mockCommands({
      list_templates: () => templates,
      create_from_template: () => {
        throw { code: "invalid_request", message: "The template holds placeholders that cannot be filled; nothing was created", details: { placeholders: ["order.number", "order.total"] } };
      },
    });
    renderWithQuery(<FromTemplate madeFor={{ customerId: "cus_1", label: "Zoë" }} />);
    await userEvent.click(screen.getByRole("button", { name: "New document from template" }));
    await userEvent.selectOptions(await screen.findByLabelText("Template"), "Order confirmation");
    await userEvent.click(screen.getByRole("button", { name: "Make and open" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("cannot be filled here: {{order.number}}, {{order.total}}. Nothing was made.");
    // Escape closes the form, and focus is back on the button that opened it.
    await userEvent.keyboard("{Escape}");
    const opener = await screen.findByRole("button", { name: "New document from template" });
    await new Promise((resolve) => requestAnimationFrame(resolve));
    expect(opener).toHaveFocus();
  });

  it("tells staff an admin chooses the folder when none is chosen", async () => {
    mockCommands({
      list_templates: () => {
        throw { code: "conflict", message: "No templates folder yet" };
      },
    });
    renderWithQuery(<FromTemplate madeFor={{ orderId: "ord_1", label: "Bo" }} />);
    await userEvent.click(screen.getByRole("button", { name: "New document from template" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("an admin chooses the Drive folder of templates in Settings");
  });
});
