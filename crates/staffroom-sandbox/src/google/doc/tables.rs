//! The table requests, as the Docs discovery document describes them: `insertTable` ("a newline
//! character will be inserted before the inserted table, therefore the table start index will be
//! at the specified location index + 1"; "inside the bounds of an existing Paragraph"), and
//! `insertTableRow`, `insertTableColumn`, `deleteTableRow` and `deleteTableColumn`, each naming a
//! cell by a `TableCellLocation` (the table's start index, a zero-based row and column).
//!
//! Removing a table's last row or column removes the whole table, as the discovery document
//! says. A new cell holds one empty paragraph. Google does not document its style; the simulator
//! gives it the reference cell's paragraph style (as the Docs editor's "insert row" does), so
//! a plan that left a new cell's style to chance would show it.

use serde_json::Value;

use super::{index_field, Invalid, SimDoc, Unit};

/// A table's rows as `(row start, cell starts)`, and the index of its end marker.
struct Grid {
    rows: Vec<(usize, Vec<usize>)>,
    end: usize,
}

impl Grid {
    /// Where row `r` ends (the next row's start, or the table's end marker).
    fn row_end(&self, r: usize) -> usize {
        self.rows.get(r + 1).map_or(self.end, |(start, _)| *start)
    }

    /// Where cell `c` of row `r` ends.
    fn cell_end(&self, r: usize, c: usize) -> usize {
        self.rows[r].1.get(c + 1).copied().unwrap_or_else(|| self.row_end(r))
    }
}

impl SimDoc {
    /// The table starting at `start` (the simulator holds no table inside a table).
    fn grid(&self, start: usize) -> Grid {
        let end = self.table_end(start);
        let mut rows: Vec<(usize, Vec<usize>)> = Vec::new();
        for (i, unit) in self.units.iter().enumerate().take(end).skip(start + 1) {
            match unit {
                Unit::RowStart => rows.push((i, Vec::new())),
                Unit::CellStart => rows.last_mut().expect("a cell is in a row").1.push(i),
                _ => {}
            }
        }
        Grid { rows, end }
    }

    /// The table and the cell a request's `tableCellLocation` names.
    fn cell_location(&self, body: &Value) -> Result<(Grid, usize, usize), Invalid> {
        let location =
            body.get("tableCellLocation").ok_or_else(|| Invalid("The table cell location must be set.".into()))?;
        let start_location = location
            .get("tableStartLocation")
            .ok_or_else(|| Invalid("The table start location must be set.".into()))?;
        if start_location.get("segmentId").and_then(Value::as_str).is_some_and(|s| !s.is_empty()) {
            return Err(Invalid("The sandbox has no headers, footers or footnotes.".into()));
        }
        let start = index_field(start_location, "index")?;
        if self.units.get(start) != Some(&Unit::TableStart) {
            return Err(Invalid(format!("Invalid table start location. There is no table at index {start}.")));
        }
        let grid = self.grid(start);
        let row = index_field(location, "rowIndex")?;
        let column = index_field(location, "columnIndex")?;
        let Some((_, cells)) = grid.rows.get(row) else {
            return Err(Invalid(format!("Invalid table cell location. Row index {row} is out of bounds.")));
        };
        if column >= cells.len() {
            return Err(Invalid(format!("Invalid table cell location. Column index {column} is out of bounds.")));
        }
        Ok((grid, row, column))
    }

    /// A new cell beside the one at `reference`: its start and one empty paragraph.
    fn new_cell(&self, reference: usize) -> [Unit; 2] {
        let (para, style) = self.units[reference..]
            .iter()
            .find_map(|u| match u {
                Unit::Newline { para, style } => Some((*para, *style)),
                _ => None,
            })
            .unwrap_or((0, 0));
        [Unit::CellStart, Unit::Newline { para, style }]
    }

    /// Removes the whole table ("If no rows remain in the table after this deletion, the whole
    /// table is deleted").
    fn delete_table(&mut self, grid: &Grid) {
        let start = grid.rows[0].0 - 1;
        self.units.drain(start..=grid.end);
    }

    pub(super) fn insert_table(&mut self, body: &Value) -> Result<(), Invalid> {
        let count = |name: &str| match body.get(name).and_then(Value::as_u64) {
            Some(n) if n >= 1 => Ok(n as usize),
            _ => Err(Invalid(format!("The number of {name} must be at least 1."))),
        };
        let (rows, columns) = (count("rows")?, count("columns")?);
        let index = match (body.get("location"), body.get("endOfSegmentLocation")) {
            (Some(location), None) => index_field(location, "index")?,
            (None, Some(_)) => self.len() - 1,
            _ => return Err(Invalid("Exactly one of location and endOfSegmentLocation must be set.".into())),
        };
        if index < self.len() && self.enclosing_table(index).is_some() {
            return Err(Invalid("The sandbox does not put a table inside a table.".into()));
        }
        // The newline first, as `insertText` inserts it (the paragraph splits, both halves keeping
        // its style), then the table right after it.
        self.insert_text(&serde_json::json!({"text": "\n", "location": {"index": index}}))?;
        let mut units = vec![Unit::TableStart];
        for _ in 0..rows {
            units.push(Unit::RowStart);
            for _ in 0..columns {
                units.extend([Unit::CellStart, Unit::Newline { para: 0, style: 0 }]);
            }
        }
        units.push(Unit::TableEnd);
        self.units.splice(index + 1..index + 1, units);
        Ok(())
    }

    pub(super) fn insert_table_row(&mut self, body: &Value) -> Result<(), Invalid> {
        let (grid, row, _) = self.cell_location(body)?;
        let below = body.get("insertBelow").and_then(Value::as_bool).unwrap_or(false);
        let at = if below { grid.row_end(row) } else { grid.rows[row].0 };
        let mut units = vec![Unit::RowStart];
        for &cell in &grid.rows[row].1 {
            units.extend(self.new_cell(cell));
        }
        self.units.splice(at..at, units);
        Ok(())
    }

    pub(super) fn insert_table_column(&mut self, body: &Value) -> Result<(), Invalid> {
        let (grid, _, column) = self.cell_location(body)?;
        let right = body.get("insertRight").and_then(Value::as_bool).unwrap_or(false);
        // From the last row up, so that the earlier rows' indexes stay put.
        for r in (0..grid.rows.len()).rev() {
            let reference = grid.rows[r].1.get(column).copied().unwrap_or(grid.rows[r].0);
            let at = if right { grid.cell_end(r, column.min(grid.rows[r].1.len() - 1)) } else { reference };
            let cell = self.new_cell(reference);
            self.units.splice(at..at, cell);
        }
        Ok(())
    }

    pub(super) fn delete_table_row(&mut self, body: &Value) -> Result<(), Invalid> {
        let (grid, row, _) = self.cell_location(body)?;
        if grid.rows.len() == 1 {
            self.delete_table(&grid);
        } else {
            self.units.drain(grid.rows[row].0..grid.row_end(row));
        }
        Ok(())
    }

    pub(super) fn delete_table_column(&mut self, body: &Value) -> Result<(), Invalid> {
        let (grid, _, column) = self.cell_location(body)?;
        if grid.rows.iter().all(|(_, cells)| cells.len() == 1) {
            self.delete_table(&grid);
            return Ok(());
        }
        for r in (0..grid.rows.len()).rev() {
            if column < grid.rows[r].1.len() {
                self.units.drain(grid.rows[r].1[column]..grid.cell_end(r, column));
            }
        }
        Ok(())
    }
}
