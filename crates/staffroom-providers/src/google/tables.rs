//! Tables: which ones the editor may edit, how an edited one is checked, and the requests that
//! give it its new shape.
//!
//! A table is editable when it is a plain grid: every row has a cell in every column, no cell
//! is merged (`rowSpan` and `columnSpan` 1), and every cell holds only text paragraphs outside
//! any list. Any other table stays a fixed block that no request touches.
//!
//! An edited table keeps, for each row and column, which of the base table's it is (absent: the
//! user added it). Its shape changes first, before any text request: rows and columns the user
//! removed go (`deleteTableRow`, `deleteTableColumn`, highest first), then the ones they added
//! come (`insertTableColumn`, `insertTableRow`, left to right and top down, each beside one
//! already in place), tables from the highest index down, so that every request names its table
//! by the base revision's start index. The document as those requests leave it (kept cells as
//! they were, new cells empty with a style Google does not document) is the base the text,
//! styles and marks are then planned against: each cell is one more run of paragraphs whose last
//! newline stays.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::model::{Document, Paragraph, ParagraphElement, StructuralElement, Table, TableCell, TableRow, TextRun};
use super::planner::EditBlock;
use staffroom_base::error::FieldError;

/// The named style the planner gives a new cell's paragraph: none Google has, so that each new
/// cell gets its style set whatever Google gave it.
pub const UNKNOWN_STYLE: &str = "";
/// Its alignment, likewise (read back as not known: see `Paragraph::alignment`).
const UNKNOWN_ALIGNMENT: &str = "";

/// One row of an edited table.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TableRowEdit {
    /// Which row of the base table this is (0 for the first); absent: a row the user added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    #[schema(minimum = 0, maximum = 2147483647)]
    pub from: Option<u32>,
    /// The cells, one per column: each holds its paragraphs (at least one, none in a list).
    #[schema(no_recursion)]
    pub cells: Vec<Vec<EditBlock>>,
}

/// Whether Docs' cell spans one row and one column (an absent span is 1).
fn is_single(cell: &TableCell) -> bool {
    let span = |name: &str| cell.table_cell_style.as_ref().and_then(|s| s.get(name)).and_then(Value::as_u64);
    span("rowSpan").unwrap_or(1) == 1 && span("columnSpan").unwrap_or(1) == 1
}

/// The table's cells as grids of their paragraphs (row, column, paragraph), when the editor may
/// edit it: `editable` says whether a paragraph may be edited as text outside any list.
pub fn grid<'a>(
    table: &'a Table,
    editable: impl Fn(&Paragraph) -> bool,
) -> Option<Vec<Vec<Vec<&'a StructuralElement>>>> {
    let columns = table.table_rows.first()?.table_cells.len();
    if columns == 0 {
        return None;
    }
    let mut rows = Vec::with_capacity(table.table_rows.len());
    for row in &table.table_rows {
        if row.table_cells.len() != columns || !row.table_cells.iter().all(is_single) {
            return None;
        }
        let mut cells = Vec::with_capacity(columns);
        for cell in &row.table_cells {
            let editable_cell = !cell.content.is_empty()
                && cell.content.iter().all(|e| e.paragraph.as_ref().is_some_and(|p| p.bullet.is_none() && editable(p)));
            if !editable_cell {
                return None;
            }
            cells.push(cell.content.iter().collect());
        }
        rows.push(cells);
    }
    Some(rows)
}

/// Checks an edited table's shape against its base table (`rows` by `columns`): cells where the
/// columns say, rows and columns of the base named once each and in their order, and cells of
/// paragraphs outside lists. `path` names the table (`blocks[3]`).
pub fn check(
    path: &str,
    columns: &[Option<u32>],
    rows: &[TableRowEdit],
    base: (u32, u32),
    errors: &mut Vec<FieldError>,
) {
    if rows.is_empty() || columns.is_empty() {
        errors.push(FieldError::new(path, "a table keeps at least one row and one column"));
        return;
    }
    check_order(&format!("{path}.columns"), columns.iter().copied(), base.1, errors);
    check_order(&format!("{path}.rows"), rows.iter().map(|r| r.from), base.0, errors);
    for (r, row) in rows.iter().enumerate() {
        if row.cells.len() != columns.len() {
            errors.push(FieldError::new(
                format!("{path}.rows[{r}].cells"),
                format!("must hold one cell per column ({})", columns.len()),
            ));
            continue;
        }
        for (c, cell) in row.cells.iter().enumerate() {
            let fits = !cell.is_empty() && cell.iter().all(|b| matches!(b, EditBlock::Paragraph { list: None, .. }));
            if !fits {
                errors.push(FieldError::new(
                    format!("{path}.rows[{r}].cells[{c}]"),
                    "a cell holds at least one paragraph, and only paragraphs outside lists",
                ));
            }
        }
    }
}

/// Refuses a base row or column named twice, out of order, or beyond the base table's `count`.
fn check_order(field: &str, from: impl Iterator<Item = Option<u32>>, count: u32, errors: &mut Vec<FieldError>) {
    let mut last: Option<u32> = None;
    for (i, from) in from.enumerate() {
        let Some(from) = from else { continue };
        if count == 0 {
            errors.push(FieldError::new(format!("{field}[{i}]"), "must be null: the table is new"));
            return;
        }
        if from >= count {
            errors.push(FieldError::new(format!("{field}[{i}]"), format!("the table had {count}: 0 to {}", count - 1)));
            return;
        }
        if last.is_some_and(|last| from <= last) {
            errors.push(FieldError::new(
                format!("{field}[{i}]"),
                "each of the table's own must come once, in its order (they cannot be moved)",
            ));
            return;
        }
        last = Some(from);
    }
}

/// Which base row or column each one is, with the first made the base's first when none is
/// kept: a table keeps at least one of its own, so the requests never empty it.
fn effective(from: impl Iterator<Item = Option<u32>>) -> Vec<Option<u32>> {
    let mut from: Vec<Option<u32>> = from.collect();
    if from.iter().all(Option::is_none) {
        from[0] = Some(0);
    }
    from
}

/// The requests that give each edited table its rows and columns, and the document as they
/// leave it (none when no table changes shape). The edits are checked ones: see [`check`].
pub fn reshape(base: &Document, edited: &[EditBlock]) -> (Vec<Value>, Option<Document>) {
    let mut tables: Vec<(u32, Vec<Option<u32>>, Vec<Option<u32>>)> = edited
        .iter()
        .filter_map(|b| match b {
            EditBlock::Table { start_index: Some(start), columns, rows } => {
                Some((*start, effective(rows.iter().map(|r| r.from)), effective(columns.iter().copied())))
            }
            _ => None,
        })
        .collect();
    tables.sort_by_key(|(start, ..)| std::cmp::Reverse(*start));
    let unchanged = |start: u32, rows: &[Option<u32>], columns: &[Option<u32>]| {
        let Some(table) = base.body.content.iter().find(|e| e.start_index == start).and_then(|e| e.table.as_ref())
        else {
            return true;
        };
        let (base_rows, base_columns) = (table.table_rows.len() as u32, table.table_rows[0].table_cells.len() as u32);
        rows.iter().copied().eq((0..base_rows).map(Some)) && columns.iter().copied().eq((0..base_columns).map(Some))
    };
    tables.retain(|(start, rows, columns)| !unchanged(*start, rows, columns));
    if tables.is_empty() {
        return (Vec::new(), None);
    }
    let mut requests = Vec::new();
    let mut after = base.clone();
    for (start, rows, columns) in tables {
        let Some(element) = after.body.content.iter_mut().find(|e| e.start_index == start) else { continue };
        let Some(table) = element.table.as_mut() else { continue };
        let (base_rows, base_columns) = (table.table_rows.len() as u32, table.table_rows[0].table_cells.len() as u32);
        let at = |row: usize, column: usize| json!({"tableStartLocation": {"index": start}, "rowIndex": row, "columnIndex": column});
        for row in (0..base_rows).rev().filter(|r| !rows.contains(&Some(*r))) {
            requests.push(json!({"deleteTableRow": {"tableCellLocation": at(row as usize, 0)}}));
        }
        for column in (0..base_columns).rev().filter(|c| !columns.contains(&Some(*c))) {
            requests.push(json!({"deleteTableColumn": {"tableCellLocation": at(0, column as usize)}}));
        }
        // Every column and row before the new one is in place by now: it goes right of (below)
        // the one before it, or left of (above) the first.
        for (c, _) in columns.iter().enumerate().filter(|(_, from)| from.is_none()) {
            requests.push(json!({"insertTableColumn": {
                "tableCellLocation": at(0, c.saturating_sub(1)), "insertRight": c > 0
            }}));
        }
        for (r, _) in rows.iter().enumerate().filter(|(_, from)| from.is_none()) {
            requests.push(json!({"insertTableRow": {
                "tableCellLocation": at(r.saturating_sub(1), 0), "insertBelow": r > 0
            }}));
        }
        table.table_rows = rows
            .iter()
            .map(|row| TableRow {
                table_cells: columns
                    .iter()
                    .map(|column| match (row, column) {
                        (Some(r), Some(c)) => table.table_rows[*r as usize].table_cells[*c as usize].clone(),
                        _ => new_cell(),
                    })
                    .collect(),
                ..TableRow::default()
            })
            .collect();
    }
    reindex(&mut after);
    (requests, Some(after))
}

/// A cell as the planner assumes an inserted one: one empty paragraph of an unknown style.
fn new_cell() -> TableCell {
    let mut style = Map::new();
    style.insert("namedStyleType".into(), UNKNOWN_STYLE.into());
    style.insert("alignment".into(), UNKNOWN_ALIGNMENT.into());
    TableCell {
        content: vec![StructuralElement {
            paragraph: Some(Paragraph {
                elements: vec![ParagraphElement {
                    start_index: 0,
                    end_index: 1,
                    text_run: Some(TextRun { content: "\n".into(), ..TextRun::default() }),
                    other: Map::new(),
                }],
                paragraph_style: Some(style),
                ..Paragraph::default()
            }),
            ..StructuralElement::default()
        }],
        ..TableCell::default()
    }
}

/// Gives every element its indexes again, from the lengths of its text elements and Docs'
/// layout of a table (one index each for its start, each row's and cell's start, and its end).
pub fn reindex(doc: &mut Document) {
    fn place(elements: &mut [StructuralElement], mut at: u32) -> u32 {
        for element in elements {
            let start = at;
            if let Some(paragraph) = &mut element.paragraph {
                for piece in &mut paragraph.elements {
                    let len = piece.end_index - piece.start_index;
                    piece.start_index = at;
                    at += len;
                    piece.end_index = at;
                }
            } else if let Some(table) = &mut element.table {
                at += 1;
                for row in &mut table.table_rows {
                    row.start_index = at;
                    at += 1;
                    for cell in &mut row.table_cells {
                        cell.start_index = at;
                        at = place(&mut cell.content, at + 1);
                        cell.end_index = at;
                    }
                    row.end_index = at;
                }
                at += 1;
                table.rows = table.table_rows.len() as u32;
                table.columns = table.table_rows.first().map_or(0, |r| r.table_cells.len() as u32);
            } else {
                at += element.end_index - element.start_index;
            }
            element.start_index = start;
            element.end_index = at;
        }
        at
    }
    place(&mut doc.body.content, 0);
}

// ---------------------------------------------------------------------------------------------
// New tables
//
// Docs' `insertTable` inserts a newline and then the table at a paragraph's index: the paragraph
// splits in two around the table. So a table the user added between paragraphs X and Y is made in
// three stages: the rest of the edit is planned with X and Y as one paragraph (X's style, no
// list); `insertTable` goes where X's text ends in it (the tables from the highest index down);
// then the edit is planned again, against the document as those requests leave it (Y taking X's
// look, the new cells empty with a style Google does not document), which sets Y's look and types
// the cells.

/// The most rows, or columns, a new table may have (Docs' own editor offers up to 20 by 20; the
/// API documents no limit).
pub const MAX_NEW_TABLE_SIDE: usize = 100;

/// Whether the block is a table the user added.
pub fn is_new(block: &EditBlock) -> bool {
    matches!(block, EditBlock::Table { start_index: None, .. })
}

/// The edit with each new table taken out and the paragraphs on either side of it made one
/// (text and runs joined, the first's style, outside any list): the first stage.
pub fn without_new(edited: &[EditBlock]) -> Vec<EditBlock> {
    let mut out: Vec<EditBlock> = Vec::with_capacity(edited.len());
    let mut join_next = false;
    for block in edited {
        if is_new(block) {
            join_next = true;
            continue;
        }
        match (join_next, out.last_mut(), block) {
            (
                true,
                Some(EditBlock::Paragraph { text, runs, list, .. }),
                EditBlock::Paragraph { text: after, runs: after_runs, .. },
            ) => {
                text.push_str(after);
                // Outside any list: a list item's text must not start with a tab, and Y's may.
                *list = None;
                *runs = match (runs.take(), after_runs) {
                    (Some(mut a), Some(b)) => {
                        a.extend(b.iter().cloned());
                        Some(a)
                    }
                    _ => None,
                };
            }
            _ => out.push(block.clone()),
        }
        join_next = false;
    }
    out
}

/// The `insertTable` requests of the second stage, against the document the first leaves
/// (`joined`, as [`without_new`] made it, laid out over `base`'s fixed parts), and the edit the
/// third stage plans against the document they leave: that document, and the edit with its
/// fixed parts and tables named by their places in it.
pub fn insert_new(
    base: &Document,
    edited: &[EditBlock],
    joined: &[EditBlock],
) -> (Vec<Value>, Document, Vec<EditBlock>) {
    // Where X's text ends in its joined paragraph, for each new table (after X).
    let first = synthesize(joined, base);
    let starts: Vec<u32> = first.body.content.iter().skip(1).map(|e| e.start_index).collect();
    let mut requests = Vec::new();
    let (mut joined_count, mut end_in_joined, mut merge_next) = (0usize, 0u32, false);
    for block in edited {
        if let EditBlock::Table { start_index: None, columns, rows } = block {
            let at = starts[joined_count - 1] + end_in_joined;
            requests.push(json!({"insertTable": {
                "rows": rows.len(), "columns": columns.len(), "location": {"index": at}
            }}));
            merge_next = true;
            continue;
        }
        match block {
            EditBlock::Paragraph { text, .. } if merge_next => end_in_joined += super::model::utf16_len(text),
            EditBlock::Paragraph { text, .. } => {
                joined_count += 1;
                end_in_joined = super::model::utf16_len(text);
            }
            _ => joined_count += 1,
        }
        merge_next = false;
    }
    // From the highest index down.
    requests.reverse();

    // The document then: the paragraphs on either side of a new table with the look of the
    // joined paragraph (the first one's style and alignment, no list), the new tables' cells empty.
    let mut then: Vec<EditBlock> = edited.to_vec();
    for i in 1..then.len().saturating_sub(1) {
        if !is_new(&then[i]) {
            continue;
        }
        if let EditBlock::Paragraph { style, alignment, list, .. } = &mut then[i - 1] {
            *list = None;
            let (style, alignment) = (style.clone(), *alignment);
            if let EditBlock::Paragraph { style: y_style, alignment: y_alignment, list: y_list, .. } = &mut then[i + 1]
            {
                *y_style = style;
                *y_alignment = alignment;
                *y_list = None;
            }
        }
        if let EditBlock::Table { columns, rows, .. } = &mut then[i] {
            let empty = EditBlock::Paragraph {
                text: String::new(),
                style: UNKNOWN_STYLE.into(),
                alignment: None,
                runs: Some(vec![]),
                list: None,
            };
            for row in rows.iter_mut() {
                row.cells = vec![vec![empty.clone()]; columns.len()];
            }
        }
    }
    let after = synthesize(&then, base);
    // The edit, its structure named as that document has it.
    let mut relabelled = edited.to_vec();
    for (block, element) in relabelled.iter_mut().zip(after.body.content.iter().skip(1)) {
        match block {
            EditBlock::Fixed { start_index } => *start_index = element.start_index,
            EditBlock::Table { start_index, columns, rows } => {
                *start_index = Some(element.start_index);
                *columns = (0..columns.len() as u32).map(Some).collect();
                for (row, r) in rows.iter_mut().zip(0..) {
                    row.from = Some(r);
                }
            }
            EditBlock::Paragraph { .. } => {}
        }
    }
    (requests, after, relabelled)
}

/// A document holding `blocks` as Docs would (fixed parts copied from `base`), with its indexes:
/// what a stage's requests leave, for the next stage to plan against.
pub fn synthesize(blocks: &[EditBlock], base: &Document) -> Document {
    // Everything but the body, which is made anew.
    let mut doc = Document {
        id: base.id.clone(),
        name: base.name.clone(),
        revision_id: base.revision_id.clone(),
        lists: base.lists.clone(),
        inline_objects: base.inline_objects.clone(),
        positioned_objects: base.positioned_objects.clone(),
        ..Document::default()
    };
    doc.body.content = std::iter::once(StructuralElement {
        end_index: 1,
        section_break: Some(json!({})),
        ..StructuralElement::default()
    })
    .chain(blocks.iter().map(|b| element_of(b, base, &mut doc.lists)))
    .collect();
    reindex(&mut doc);
    doc
}

/// A block as Docs' element (indexes to be set by [`reindex`]).
fn element_of(block: &EditBlock, base: &Document, lists: &mut Option<Map<String, Value>>) -> StructuralElement {
    match block {
        EditBlock::Fixed { start_index } => {
            base.body.content.iter().find(|e| e.start_index == *start_index).cloned().unwrap_or_default()
        }
        EditBlock::Table { columns, rows, .. } => StructuralElement {
            table: Some(Table {
                table_rows: rows
                    .iter()
                    .map(|row| TableRow {
                        table_cells: (0..columns.len())
                            .map(|c| TableCell {
                                content: row
                                    .cells
                                    .get(c)
                                    .into_iter()
                                    .flatten()
                                    .map(|p| element_of(p, base, lists))
                                    .collect(),
                                ..TableCell::default()
                            })
                            .collect(),
                        ..TableRow::default()
                    })
                    .collect(),
                ..Table::default()
            }),
            ..StructuralElement::default()
        },
        EditBlock::Paragraph { text, style, alignment, runs, list } => {
            let mut pieces: Vec<ParagraphElement> = Vec::new();
            let mut rest = text.as_str();
            for run in runs.iter().flatten() {
                let mut units = 0;
                let cut = rest
                    .char_indices()
                    .find(|(_, c)| {
                        let before = units;
                        units += c.len_utf16() as u32;
                        before >= run.len
                    })
                    .map_or(rest.len(), |(i, _)| i);
                let (piece, after) = rest.split_at(cut);
                rest = after;
                pieces.push(text_element(piece, Some(super::marks::text_style(run))));
            }
            if !rest.is_empty() {
                pieces.push(text_element(rest, None));
            }
            pieces.push(text_element("\n", None));
            let mut paragraph_style = Map::new();
            paragraph_style.insert("namedStyleType".into(), json!(style));
            // An alignment the edit leaves as it is cannot be known here.
            paragraph_style.insert("alignment".into(), json!(alignment.map_or(UNKNOWN_ALIGNMENT, |a| a.as_str())));
            let bullet = list.as_ref().map(|item| {
                let lists = lists.get_or_insert_with(Map::new);
                lists.entry(item.id.clone()).or_insert_with(|| {
                    let glyph = match item.kind {
                        super::lists::ListKind::Bullet => json!({"glyphSymbol": "●"}),
                        super::lists::ListKind::Number => json!({"glyphType": "DECIMAL"}),
                    };
                    json!({"listProperties": {"nestingLevels": vec![glyph; 9]}})
                });
                json!({"listId": item.id, "nestingLevel": item.level})
            });
            StructuralElement {
                paragraph: Some(Paragraph {
                    elements: pieces,
                    paragraph_style: Some(paragraph_style),
                    bullet,
                    ..Paragraph::default()
                }),
                ..StructuralElement::default()
            }
        }
    }
}

/// A text run of `content` (its length in UTF-16 units as its indexes' span).
fn text_element(content: &str, style: Option<Map<String, Value>>) -> ParagraphElement {
    ParagraphElement {
        start_index: 0,
        end_index: super::model::utf16_len(content),
        text_run: Some(TextRun {
            content: content.into(),
            style: style.filter(|s| !s.is_empty()),
            ..TextRun::default()
        }),
        other: Map::new(),
    }
}
