import { ListBody } from "../components/ListBody";
import { KEY_STATUSES, LicenseKeyTable } from "../components/LicenseKeys";
import { useRefetchOnWebhook } from "../events";
import { can } from "../access";
import { api } from "../api";
import type { LicenseKeyStatus, User } from "../types";
import { useListState } from "../listState";
import { usePagedList } from "../paging";
import { ExportButton } from "../components/ExportButton";

const PAGE_SIZE = 20;

/** Licence keys: the store's keys, newest first, found by the customer's e-mail or by the key
 *  (its short form, or the whole key a customer pasted into an e-mail). */
export function LicenseKeys({ user }: { user: User }) {
  const { filters, search, page, set, setPage, clear, filtered } = useListState("license-keys", { search: "", status: "" });
  const status = filters.status as LicenseKeyStatus | "";
  const list = usePagedList(
    (p) => ["license-keys", p, search, status],
    (p) => api.listLicenseKeys({ page: p, limit: PAGE_SIZE, search: search || null, status: status || null }),
    page,
  );
  useRefetchOnWebhook([["license-keys"]]);
  return (
    <section className="content" aria-labelledby="keys-title">
      <div className="stack">
        <div className="toolbar">
          <h2 id="keys-title">Licence keys</h2>
          <ExportButton list="license-keys" noun="licence keys" filters={{ search, status }} />
        </div>
        <div className="toolbar filters" role="search" aria-label="Find licence keys">
          <input
            className="search"
            type="search"
            aria-label="Search licence keys"
            placeholder="E-mail or key"
            value={filters.search}
            onChange={(e) => set({ search: e.target.value })}
          />
          <label htmlFor="key-status" className="muted">Status</label>
          <select id="key-status" value={status} onChange={(e) => set({ status: e.target.value })}>
            <option value="">All</option>
            {Object.entries(KEY_STATUSES).map(([value, [label]]) => <option key={value} value={value}>{label}</option>)}
          </select>
          {filtered && <button type="button" className="link" onClick={clear}>Clear</button>}
        </div>
        <ListBody
          query={list}
          items={list.data?.licenseKeys}
          noun="licence keys"
          empty={filtered ? "No licence keys match." : "No licence keys yet: they come with orders of products that sell them."}
          onPage={setPage}
        >
          {(keys) => <LicenseKeyTable keys={keys} canChange={can(user, "update_license_key")} label="Licence keys" showCustomer />}
        </ListBody>
      </div>
    </section>
  );
}
