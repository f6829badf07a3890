//! The Overview's money (SPEC section 11): the store's paid orders, what was refunded of them,
//! and its subscriptions, over a range of days. Computed from the cache, so that it is fast and
//! still there offline (marked stale when the last orders sync failed).

use serde::Serialize;

use super::store::{DaySales, SalesSpan, SubscriptionFigures};
use staffroom_base::error::{Error, Result};

/// The longest range a summary covers, in days (its `daily` has one entry per day).
pub const MAX_DAYS: i64 = 400;
/// The range when none is asked for: the last 30 days, today included.
pub const DEFAULT_DAYS: i64 = 30;

/// `GET /api/payments/summary`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SalesSummary {
    /// The range: from (inclusive) and to (exclusive), RFC 3339 UTC.
    pub from: String,
    pub to: String,
    /// The store's currency: every amount is in its minor units.
    pub currency: String,
    /// Paid orders made in the range (paid, refunded or partly refunded; never pending, failed
    /// or fraudulent).
    pub orders: i64,
    pub gross_revenue: i64,
    pub refunds: i64,
    pub net_revenue: i64,
    /// Monthly recurring revenue of the active and past-due subscriptions now.
    pub mrr: i64,
    /// Subscriptions live now (trial, active, paused, past due or unpaid).
    pub active_subscriptions: i64,
    pub new_subscriptions: i64,
    pub cancelled_subscriptions: i64,
    /// Subscriptions whose payment failed (past due or unpaid): staff's attention.
    pub past_due_subscriptions: i64,
    /// Every day of the range, in order, days without sales included: they add up to the totals.
    pub daily: Vec<DailyNet>,
    /// The last orders sync failed: the figures are the cache's.
    pub stale: bool,
    /// When the orders were last synced.
    pub synced_at: Option<String>,
}

/// One UTC day of a summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct DailyNet {
    /// `YYYY-MM-DD`.
    pub date: String,
    pub orders: i64,
    pub net_revenue: i64,
}

/// `{summary}`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct SalesSummaryEnvelope {
    pub summary: SalesSummary,
}

/// The range a request names: `from` and `to` as RFC 3339 UTC (already read by
/// `validate::instant`), the last 30 days by default; refused when it is empty, backwards or
/// longer than [`MAX_DAYS`].
pub fn range(from: Option<String>, to: Option<String>) -> Result<(String, String)> {
    use chrono::{DateTime, Duration, Utc};
    let parse = |t: &str| DateTime::parse_from_rfc3339(t).map(|t| t.with_timezone(&Utc)).ok();
    let tomorrow =
        (Utc::now().date_naive() + Duration::days(1)).and_hms_opt(0, 0, 0).expect("midnight exists").and_utc();
    let to = to.as_deref().and_then(parse).unwrap_or(tomorrow);
    let from = from.as_deref().and_then(parse).unwrap_or(to - Duration::days(DEFAULT_DAYS));
    if from >= to {
        return Err(Error::invalid_field("from", "must be before to"));
    }
    if to - from > Duration::days(MAX_DAYS) {
        return Err(Error::invalid_field("to", format!("must be at most {MAX_DAYS} days after from")));
    }
    let text = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true);
    Ok((text(from), text(to)))
}

/// How the stores read [`from`, `to`): the whole days inside it from their roll-up by day, the
/// rest of the first and last day, if any, from the orders. A range inside one or two days
/// without a whole day between is read from the orders only.
pub fn span(from: &str, to: &str) -> SalesSpan {
    use chrono::{DateTime, Duration, Utc};
    let parse = |t: &str| DateTime::parse_from_rfc3339(t).map(|t| t.with_timezone(&Utc)).ok();
    let whole = parse(from).zip(parse(to)).and_then(|(start, end)| {
        let first = start.date_naive() + Duration::days(i64::from(start.time() != chrono::NaiveTime::MIN));
        let last_end = end.date_naive();
        (first < last_end).then(|| (first.format("%Y-%m-%d").to_string(), last_end.format("%Y-%m-%d").to_string()))
    });
    let (head_end, first_day, end_day, tail_start) = match whole {
        Some((first, end)) => (first.clone(), first, end.clone(), end),
        None => (to.to_string(), String::new(), String::new(), to.to_string()),
    };
    SalesSpan { from: from.to_string(), head_end, first_day, end_day, tail_start, to: to.to_string() }
}

/// Every UTC day that [`from`, `to`) touches, as `YYYY-MM-DD`.
fn days(from: &str, to: &str) -> Vec<String> {
    let (Ok(from), Ok(to)) = (chrono::DateTime::parse_from_rfc3339(from), chrono::DateTime::parse_from_rfc3339(to))
    else {
        return Vec::new();
    };
    let (mut day, end) = (from.date_naive(), to - chrono::Duration::nanoseconds(1));
    let mut out = Vec::new();
    while day <= end.date_naive() {
        out.push(day.format("%Y-%m-%d").to_string());
        day += chrono::Duration::days(1);
    }
    out
}

/// The summary from what the store answered: the days with sales spread over every day of the
/// range, the totals their sums.
pub fn assemble(
    (from, to): (String, String),
    currency: String,
    sales: Vec<DaySales>,
    subscriptions: SubscriptionFigures,
    (stale, synced_at): (bool, Option<String>),
) -> SalesSummary {
    let mut by_day: std::collections::HashMap<String, DaySales> =
        sales.into_iter().map(|d| (d.date.clone(), d)).collect();
    let (mut orders, mut gross, mut refunds) = (0, 0, 0);
    let daily = days(&from, &to)
        .into_iter()
        .map(|date| {
            let day = by_day.remove(&date).unwrap_or(DaySales { date: date.clone(), orders: 0, gross: 0, refunds: 0 });
            (orders, gross, refunds) = (orders + day.orders, gross + day.gross, refunds + day.refunds);
            DailyNet { date, orders: day.orders, net_revenue: day.gross - day.refunds }
        })
        .collect();
    SalesSummary {
        from,
        to,
        currency,
        orders,
        gross_revenue: gross,
        refunds,
        net_revenue: gross - refunds,
        mrr: subscriptions.mrr,
        active_subscriptions: subscriptions.active,
        new_subscriptions: subscriptions.new,
        cancelled_subscriptions: subscriptions.cancelled,
        past_due_subscriptions: subscriptions.past_due,
        daily,
        stale,
        synced_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(date: &str, orders: i64, gross: i64, refunds: i64) -> DaySales {
        DaySales { date: date.into(), orders, gross, refunds }
    }

    #[test]
    fn the_days_add_up_to_the_totals_and_empty_days_are_there() {
        let range = ("2026-11-01T00:00:00Z".to_string(), "2026-11-04T00:00:00Z".to_string());
        let sales = vec![day("2026-11-01", 2, 3000, 500), day("2026-11-03", 1, 1000, 0)];
        let summary = assemble(range, "USD".into(), sales, SubscriptionFigures::default(), (false, None));
        let dates: Vec<&str> = summary.daily.iter().map(|d| d.date.as_str()).collect();
        assert_eq!(dates, ["2026-11-01", "2026-11-02", "2026-11-03"]);
        assert_eq!((summary.orders, summary.gross_revenue, summary.refunds, summary.net_revenue), (3, 4000, 500, 3500));
        assert_eq!(summary.daily.iter().map(|d| d.net_revenue).sum::<i64>(), summary.net_revenue);
        assert_eq!(summary.daily[1], DailyNet { date: "2026-11-02".into(), orders: 0, net_revenue: 0 });
    }

    #[test]
    fn a_range_is_forwards_and_not_too_long() {
        let (from, to) = range(None, None).unwrap();
        assert_eq!(days(&from, &to).len() as i64, DEFAULT_DAYS, "{from} to {to}");
        assert!(to.ends_with("T00:00:00Z"));
        let at = |t: &str| Some(t.to_string());
        assert_eq!(
            range(at("2026-11-02T00:00:00Z"), at("2026-11-01T00:00:00Z")).unwrap_err().details.unwrap()["fields"][0]
                ["field"],
            "from"
        );
        assert!(range(at("2025-01-01T00:00:00Z"), at("2026-11-01T00:00:00Z")).is_err());
        assert_eq!(days("2026-11-01T12:00:00Z", "2026-11-02T00:00:00Z"), ["2026-11-01"]);
    }

    #[test]
    fn a_span_reads_whole_days_from_the_roll_up_and_the_ends_from_the_orders() {
        let parts = |s: SalesSpan| (s.head_end, s.first_day, s.end_day, s.tail_start);
        // Midnight to midnight: whole days only (the head and tail are empty ranges).
        let s = span("2026-11-01T00:00:00Z", "2026-11-04T00:00:00Z");
        assert_eq!(s.from, "2026-11-01T00:00:00Z");
        assert_eq!(parts(s), ("2026-11-01".into(), "2026-11-01".into(), "2026-11-04".into(), "2026-11-04".into()));
        // Mid-day ends: the rest of the 1st and the start of the 4th from the orders.
        let s = span("2026-11-01T05:00:00Z", "2026-11-04T06:30:00Z");
        assert_eq!(parts(s), ("2026-11-02".into(), "2026-11-02".into(), "2026-11-04".into(), "2026-11-04".into()));
        // No whole day inside: all of it from the orders, nothing twice.
        for (from, to) in
            [("2026-11-01T05:00:00Z", "2026-11-01T18:00:00Z"), ("2026-11-01T05:00:00Z", "2026-11-02T18:00:00Z")]
        {
            let s = span(from, to);
            assert_eq!((s.head_end.as_str(), s.tail_start.as_str(), s.first_day.as_str()), (to, to, ""));
        }
    }
}
