//! A list's `WHERE` clause, built from only the conditions a query asks for: a
//! `($1 IS NULL OR column = $1)` form would keep the planner from using an index, and a prepared
//! statement's generic plan cannot drop the conditions that do not apply.

use tokio_postgres::types::ToSql;

/// Conditions joined by `AND`, with their values numbered `$1`, `$2`, … in the order bound.
#[derive(Default)]
pub struct Where {
    conditions: Vec<String>,
    values: Vec<Box<dyn ToSql + Sync + Send>>,
}

impl Where {
    /// `condition` with each of its `?`s as the number of `value` (they all take that value).
    pub fn bind(&mut self, condition: &str, value: impl ToSql + Sync + Send + 'static) -> String {
        self.values.push(Box::new(value));
        condition.replace('?', &format!("${}", self.values.len()))
    }

    pub fn and(&mut self, condition: String) {
        self.conditions.push(condition);
    }

    /// [`Self::bind`] and [`Self::and`] at once, when `value` is given.
    pub fn and_if(&mut self, condition: &str, value: Option<impl ToSql + Sync + Send + 'static>) {
        if let Some(value) = value {
            let condition = self.bind(condition, value);
            self.and(condition);
        }
    }

    pub fn sql(&self) -> String {
        if self.conditions.is_empty() {
            "TRUE".into()
        } else {
            self.conditions.join(" AND ")
        }
    }

    /// The values, to pass with the statement; the caller may add its own after them
    /// (`LIMIT $n`), numbered from [`Self::count`] + 1.
    pub fn values(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.values.iter().map(|v| v.as_ref() as &(dyn ToSql + Sync)).collect()
    }

    pub fn count(&self) -> usize {
        self.values.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_conditions_given_are_numbered_in_order() {
        let mut w = Where::default();
        assert_eq!(w.sql(), "TRUE");
        let either = w.bind("(email ILIKE ? OR name ILIKE ?)", "%ada%".to_string());
        w.and(either);
        w.and_if("status = ?", None::<String>);
        w.and_if("created_at >= ?", Some("2026-01-01".to_string()));
        assert_eq!(w.sql(), "(email ILIKE $1 OR name ILIKE $1) AND created_at >= $2");
        assert_eq!(w.count(), 2);
    }
}
