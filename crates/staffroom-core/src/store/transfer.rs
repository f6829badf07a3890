//! Copying a database from one store to the other (a desktop grown into a team, SPEC section
//! 10): each store reads or writes whole tables by the columns the database itself names, so a
//! new table or column needs no list of its own here, only its migration in each store.

/// A value as a database keeps it.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// One table's rows, with the names of their columns.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRows {
    pub table: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

/// What a copy into a team's database brings: the data's mode (`real` or `sandbox`), its
/// tables in an order that keeps references whole, and the settings that travel.
#[derive(Debug, Clone)]
pub struct DesktopData {
    pub mode: String,
    pub tables: Vec<TableRows>,
    pub settings: Vec<(String, String)>,
}
