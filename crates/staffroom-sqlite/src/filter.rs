//! A list's `WHERE` clause, built from only the conditions a query asks for: with a
//! `(?1 IS NULL OR column = ?1)` form SQLite tests every row. PostgreSQL's store has its own,
//! under the same name.

/// A `WHERE` clause built from the conditions a query asks for, with their values numbered.
#[derive(Default)]
pub struct Where {
    conditions: Vec<String>,
    pub values: Vec<Box<dyn rusqlite::ToSql>>,
}

impl Where {
    /// `condition` with its `?`s numbered for `value` (each `?` takes the same value).
    pub fn bind(&mut self, condition: &str, value: impl rusqlite::ToSql + 'static) -> String {
        self.values.push(Box::new(value));
        condition.replace('?', &format!("?{}", self.values.len()))
    }

    pub fn and(&mut self, condition: String) {
        self.conditions.push(condition);
    }

    pub fn sql(&self) -> String {
        if self.conditions.is_empty() {
            "1".into()
        } else {
            self.conditions.join(" AND ")
        }
    }
}
