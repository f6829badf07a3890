//! Character styles, the part of a run's `textStyle` Staffroom edits: bold, italic, underline,
//! strikethrough and a link's URL. The rest of how a run looks (raised or lowered, its font,
//! size, colour and highlight) is read so that the editor shows it ([`RunLook`]), and never
//! written, so it stays as it is wherever its text stays.
//!
//! Planning: after the text requests, each character of an edited paragraph either survived from
//! the base (its styles are the base's) or was inserted (Google "generally" gives it the styles
//! of the text before it, but not always: a link is not extended). A surviving stretch gets an
//! `updateTextStyle` naming only the fields that change; inserted text gets one naming all five,
//! so the result never depends on Google's guess.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::model::{utf16_len, Document, Paragraph, StructuralElement};
use staffroom_base::error::FieldError;

/// A stretch of a paragraph's text and its character styles.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "camelCase")]
pub struct StyledRun {
    /// How much of the text the run covers, in UTF-16 code units (as Google counts).
    #[schema(minimum = 1, maximum = 2147483647)]
    pub len: u32,
    #[serde(default, skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub bold: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub italic: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub underline: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub strikethrough: bool,
    /// A link's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    #[schema(min_length = 1, max_length = 2048, pattern = "^[^\\x00-\\x20\\x7f-\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+$")]
    pub link: Option<String>,
    /// How the run looks beyond what the editor edits, as Google holds it: shown, never written
    /// (a save leaves it to Google, which keeps it where the text stays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub look: Option<RunLook>,
}

/// The part of a run's `textStyle` the editor shows but does not edit.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "camelCase")]
pub struct RunLook {
    /// Raised or lowered (`baselineOffset`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub baseline: Option<Baseline>,
    /// The text's colour and its highlight (`foregroundColor`, `backgroundColor`), as `#rrggbb`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    #[schema(pattern = "^#[0-9a-f]{6}$")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    #[schema(pattern = "^#[0-9a-f]{6}$")]
    pub highlight: Option<String>,
    /// The font family (`weightedFontFamily.fontFamily`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    #[schema(min_length = 1, max_length = 100)]
    pub font: Option<String>,
    /// The size in points, as Google writes it (`fontSize.magnitude`, e.g. "10.5").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    #[schema(pattern = "^[0-9]{1,4}(\\.[0-9]{1,4})?$")]
    pub size: Option<String>,
}

/// Text raised or lowered from the line.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Baseline {
    Superscript,
    Subscript,
}

impl RunLook {
    /// The look a run's `textStyle` gives it; `None` when it is the plain look.
    pub fn of(style: Option<&Map<String, Value>>) -> Option<RunLook> {
        let style = style?;
        let colour = |key: &str| {
            let rgb = style.get(key)?.pointer("/color/rgbColor")?;
            let part =
                |c: &str| (rgb.get(c).and_then(Value::as_f64).unwrap_or(0.0).clamp(0.0, 1.0) * 255.0).round() as u8;
            Some(format!("#{:02x}{:02x}{:02x}", part("red"), part("green"), part("blue")))
        };
        let look = RunLook {
            baseline: match style.get("baselineOffset").and_then(Value::as_str) {
                Some("SUPERSCRIPT") => Some(Baseline::Superscript),
                Some("SUBSCRIPT") => Some(Baseline::Subscript),
                _ => None,
            },
            color: colour("foregroundColor"),
            highlight: colour("backgroundColor"),
            font: style
                .get("weightedFontFamily")
                .and_then(|f| f.get("fontFamily"))
                .and_then(Value::as_str)
                .filter(|f| !f.is_empty() && f.len() <= 100)
                .map(str::to_owned),
            size: style
                .get("fontSize")
                .and_then(|s| s.get("magnitude"))
                .and_then(Value::as_f64)
                .filter(|s| *s > 0.0 && *s < 10_000.0)
                .map(|s| format!("{}", (s * 100.0).round() / 100.0)),
        };
        (look != RunLook::default()).then_some(look)
    }
}

fn is_false(value: &bool) -> bool {
    !value
}

/// The five styles of one character (a link's URL borrowed from where it was read: planning a
/// large document compares hundreds of thousands of them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Marks<'a> {
    bold: bool,
    italic: bool,
    underline: bool,
    strikethrough: bool,
    link: Option<&'a str>,
}

impl<'a> Marks<'a> {
    /// A mark is set exactly when Google says `true` (an explicit `false` reads as unset).
    fn of(style: Option<&'a Map<String, Value>>) -> Marks<'a> {
        // One pass over the style's few fields (a plan reads every run of the document).
        let mut marks = Marks::default();
        for (name, value) in style.into_iter().flatten() {
            match name.as_str() {
                "bold" => marks.bold = value.as_bool().unwrap_or(false),
                "italic" => marks.italic = value.as_bool().unwrap_or(false),
                "underline" => marks.underline = value.as_bool().unwrap_or(false),
                "strikethrough" => marks.strikethrough = value.as_bool().unwrap_or(false),
                "link" => marks.link = value.get("url").and_then(Value::as_str),
                _ => {}
            }
        }
        marks
    }

    fn of_run(run: &'a StyledRun) -> Marks<'a> {
        Marks {
            bold: run.bold,
            italic: run.italic,
            underline: run.underline,
            strikethrough: run.strikethrough,
            link: run.link.as_deref(),
        }
    }

    fn run(&self, len: u32) -> StyledRun {
        StyledRun {
            len,
            bold: self.bold,
            italic: self.italic,
            underline: self.underline,
            strikethrough: self.strikethrough,
            link: self.link.map(str::to_owned),
            look: None,
        }
    }

    /// The fields of `self` that differ from `other`. A link's change names `underline` too:
    /// Google underlines a new link unless the same request says otherwise.
    fn differing(&self, other: &Marks) -> Fields {
        let mut fields = Fields::default();
        fields.0[0] = self.bold != other.bold;
        fields.0[1] = self.italic != other.italic;
        fields.0[2] = self.underline != other.underline || self.link != other.link;
        fields.0[3] = self.strikethrough != other.strikethrough;
        fields.0[4] = self.link != other.link;
        fields
    }
}

/// Which of the five fields a request sets, in `FIELD_NAMES`' order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Fields([bool; 5]);

const FIELD_NAMES: [&str; 5] = ["bold", "italic", "underline", "strikethrough", "link"];

impl Fields {
    const ALL: Fields = Fields([true; 5]);

    fn any(self) -> bool {
        self.0.iter().any(|f| *f)
    }
}

/// The paragraph's runs as the editor shows them (without the final newline), neighbours with
/// the same styles joined.
pub fn runs_of(paragraph: &Paragraph) -> Vec<StyledRun> {
    let mut runs: Vec<StyledRun> = Vec::new();
    for run in paragraph.elements.iter().filter_map(|e| e.text_run.as_ref()) {
        let len = utf16_len(run.content.strip_suffix('\n').unwrap_or(&run.content));
        if len == 0 {
            continue;
        }
        let run = StyledRun { look: RunLook::of(run.style.as_ref()), ..Marks::of(run.style.as_ref()).run(len) };
        match runs.last_mut() {
            Some(last) if StyledRun { len: last.len, ..run.clone() } == *last => last.len += len,
            _ => runs.push(run),
        }
    }
    runs
}

/// A run's styles as Google writes them in a text run's `textStyle` (the set ones only).
pub fn text_style(run: &StyledRun) -> Map<String, Value> {
    let mut style = Map::new();
    for (name, on) in
        [("bold", run.bold), ("italic", run.italic), ("underline", run.underline), ("strikethrough", run.strikethrough)]
    {
        if on {
            style.insert(name.into(), json!(true));
        }
    }
    if let Some(url) = &run.link {
        style.insert("link".into(), json!({ "url": url }));
    }
    style
}

/// Refuses runs that do not cover `text` exactly, or that split a character Google counts as two.
pub fn check(
    paragraph: &(impl std::fmt::Display + ?Sized),
    text: &str,
    runs: &[StyledRun],
    errors: &mut Vec<FieldError>,
) {
    let field = || format!("{paragraph}.runs");
    if runs.iter().any(|r| r.len == 0) {
        errors.push(FieldError::new(field(), "each run covers at least one character"));
        return;
    }
    let total: u64 = runs.iter().map(|r| u64::from(r.len)).sum();
    if total != u64::from(utf16_len(text)) {
        errors
            .push(FieldError::new(field(), format!("must cover the text exactly ({} UTF-16 units)", utf16_len(text))));
        return;
    }
    // Each run boundary must fall between two characters: walk the characters once, beside the
    // runs' ends.
    let mut chars = text.chars();
    let mut at = 0u32;
    let mut end = 0u32;
    for (j, run) in runs.iter().enumerate() {
        if end != at {
            errors.push(FieldError::new(format!("{}[{j}]", field()), "starts inside a character"));
            return;
        }
        end += run.len;
        while at < end {
            at += chars.next().map_or(1, |c| c.len_utf16() as u32);
        }
        if let Some(link) = &run.link {
            let bad = link.is_empty() || link.len() > 2048 || link.chars().any(|c| c.is_whitespace() || c.is_control());
            if bad {
                errors.push(FieldError::new(
                    format!("{}[{j}].link", field()),
                    "must be a URL of at most 2048 characters, without spaces",
                ));
            }
        }
        if let Some(look) = &run.look {
            check_look(look, &format!("{}[{j}].look", field()), errors);
        }
    }
}

/// Refuses a look no Google run has (the editor sends back what it read; nothing of it is
/// written, but what the schema refuses is refused).
fn check_look(look: &RunLook, field: &str, errors: &mut Vec<FieldError>) {
    let hex = |c: &Option<String>| {
        c.as_ref().is_none_or(|c| {
            c.len() == 7 && c.starts_with('#') && c[1..].bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        })
    };
    for (name, colour) in [("color", &look.color), ("highlight", &look.highlight)] {
        if !hex(colour) {
            errors.push(FieldError::new(format!("{field}.{name}"), "must be a colour written #rrggbb"));
        }
    }
    if look.font.as_ref().is_some_and(|f| f.is_empty() || f.chars().count() > 100) {
        errors.push(FieldError::new(format!("{field}.font"), "must be a font name of 1 to 100 characters"));
    }
    let size_ok = |s: &str| {
        let (whole, fraction) = s.split_once('.').unwrap_or((s, "1"));
        (1..=4).contains(&whole.len())
            && (1..=4).contains(&fraction.len())
            && whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit())
    };
    if look.size.as_deref().is_some_and(|s| !size_ok(s)) {
        errors.push(FieldError::new(format!("{field}.size"), "must be a size in points, such as 10.5"));
    }
}

/// A stretch of the base body that the text requests leave in place: `len` units from
/// `base_start` end up at `final_start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kept {
    pub final_start: u32,
    pub base_start: u32,
    pub len: u32,
}

/// What survives text edits given as `(base index, units deleted, units inserted)`, which never
/// overlap in the base, up to `body_end`.
pub fn kept(mut edits: Vec<(u32, u32, u32)>, body_end: u32) -> Vec<Kept> {
    edits.sort_by_key(|(at, ..)| *at);
    let (mut base, mut shift) = (0u32, 0i64);
    let mut out = Vec::new();
    for (at, deleted, inserted) in edits {
        if at > base {
            out.push(Kept { final_start: (i64::from(base) + shift) as u32, base_start: base, len: at - base });
        }
        base = base.max(at + deleted);
        shift += i64::from(inserted) - i64::from(deleted);
    }
    if body_end > base {
        out.push(Kept { final_start: (i64::from(base) + shift) as u32, base_start: base, len: body_end - base });
    }
    out
}

/// The base body's character styles: `(start, end, marks)` of each text run (table cells'
/// included), in order.
fn base_marks(doc: &Document) -> Vec<(u32, u32, Marks<'_>)> {
    fn walk<'a>(elements: &'a [StructuralElement], out: &mut Vec<(u32, u32, Marks<'a>)>) {
        for element in elements {
            if let Some(p) = &element.paragraph {
                out.extend(p.elements.iter().filter_map(|e| {
                    e.text_run.as_ref().map(|r| (e.start_index, e.end_index, Marks::of(r.style.as_ref())))
                }));
            }
            for cell in element.table.iter().flat_map(|t| &t.table_rows).flat_map(|r| &r.table_cells) {
                walk(&cell.content, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(&doc.body.content, &mut out);
    out
}

/// The `updateTextStyle` requests giving each edited paragraph (at its final index) the runs it
/// asks for, highest index first. Paragraphs without runs are left as they are.
pub fn plan(base: &Document, paragraphs: &[(u32, &[StyledRun])], kept: &[Kept]) -> Vec<Value> {
    let base_runs = base_marks(base);
    // Stretches of one wanted style and one set of fields to write, merged as they grow.
    let mut ranges: Vec<(u32, u32, Marks, Fields)> = Vec::new();
    for (start, runs) in paragraphs {
        let mut at = *start;
        for run in runs.iter() {
            let wanted = Marks::of_run(run);
            let end = at + run.len;
            // Piece by piece: each lies in one kept stretch and one base run, or was inserted.
            let mut index = at;
            while index < end {
                let (to, was) = was_at(index, end, kept, &base_runs);
                let fields = was.map_or(Fields::ALL, |marks| wanted.differing(marks));
                if fields.any() {
                    match ranges.last_mut() {
                        Some((_, last_end, marks, f)) if *last_end == index && *marks == wanted && *f == fields => {
                            *last_end = to
                        }
                        _ => ranges.push((index, to, wanted, fields)),
                    }
                }
                index = to;
            }
            at = end;
        }
    }
    ranges.into_iter().rev().map(|(start, end, marks, fields)| request(start, end, &marks, fields)).collect()
}

/// The styles the text at final `index` had in the base (none: it was inserted, or the base
/// has no run there), and up to where (before `end`) that holds.
fn was_at<'a, 'b>(
    index: u32,
    end: u32,
    kept: &[Kept],
    base_runs: &'a [(u32, u32, Marks<'b>)],
) -> (u32, Option<&'a Marks<'b>>) {
    let k = kept.partition_point(|k| k.final_start + k.len <= index);
    let Some(k) = kept.get(k).filter(|k| k.final_start <= index) else {
        // Inserted: up to the next stretch kept.
        let next = kept.get(k).map_or(end, |k| k.final_start);
        return (next.min(end), None);
    };
    let stretch_end = end.min(k.final_start + k.len);
    let base_index = k.base_start + (index - k.final_start);
    let to_final = |base: u32| k.final_start + (base - k.base_start);
    let r = base_runs.partition_point(|(_, run_end, _)| *run_end <= base_index);
    match base_runs.get(r) {
        Some((run_start, run_end, marks)) if *run_start <= base_index => {
            (stretch_end.min(to_final(*run_end)), Some(marks))
        }
        Some((run_start, ..)) => (stretch_end.min(to_final(*run_start)), None),
        None => (stretch_end, None),
    }
}

fn request(start: u32, end: u32, marks: &Marks, fields: Fields) -> Value {
    let mut style = Map::new();
    let values = [marks.bold, marks.italic, marks.underline, marks.strikethrough];
    for (n, name) in FIELD_NAMES.iter().enumerate().take(4) {
        if fields.0[n] {
            style.insert(name.to_string(), json!(values[n]));
        }
    }
    // A link removed is a field named with no value (Google's way to reset it).
    if let (true, Some(url)) = (fields.0[4], &marks.link) {
        style.insert("link".into(), json!({ "url": url }));
    }
    let names: Vec<&str> = FIELD_NAMES.iter().zip(fields.0).filter(|(_, f)| *f).map(|(n, _)| *n).collect();
    json!({"updateTextStyle": {
        "range": {"startIndex": start, "endIndex": end},
        "textStyle": style,
        "fields": names.join(","),
    }})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_survives_text_edits_is_mapped_to_where_it_ends_up() {
        // Base 0..20: insert 3 units at 5, delete 4 at 10..14, replace 16..17 by 2 units.
        let kept = kept(vec![(10, 4, 0), (5, 0, 3), (16, 1, 2)], 20);
        assert_eq!(
            kept,
            vec![
                Kept { final_start: 0, base_start: 0, len: 5 },
                Kept { final_start: 8, base_start: 5, len: 5 },
                Kept { final_start: 13, base_start: 14, len: 2 },
                Kept { final_start: 17, base_start: 17, len: 3 },
            ]
        );
    }

    #[test]
    fn runs_are_checked_against_the_text() {
        let run = |len: u32| StyledRun { len, ..StyledRun::default() };
        let mut errors = Vec::new();
        check("blocks[0]", "a😀b", &[run(1), run(2), run(1)], &mut errors);
        assert!(errors.is_empty(), "{errors:?}");
        check("blocks[1]", "a😀b", &[run(2), run(2)], &mut errors);
        assert_eq!(errors[0].field, "blocks[1].runs[1]");
        check("blocks[2]", "abc", &[run(2)], &mut errors);
        assert_eq!(errors[1].field, "blocks[2].runs");
        check("blocks[3]", "abc", &[StyledRun { link: Some("https://x y".into()), ..run(3) }], &mut errors);
        assert_eq!(errors[2].field, "blocks[3].runs[0].link");
    }

    proptest::proptest! {
        #[test]
        fn a_run_is_refused_exactly_when_it_starts_between_a_surrogate_pair(
            text in "[a😀é中🎉]{1,12}",
            cuts in proptest::collection::btree_set(1u32..40, 0..5),
        ) {
            let len = utf16_len(&text);
            let mut at = 0;
            let mut runs = Vec::new();
            for cut in cuts.into_iter().filter(|c| *c < len).chain([len]) {
                runs.push(StyledRun { len: cut - at, ..StyledRun::default() });
                at = cut;
            }
            // Where characters start, in UTF-16 units.
            let starts: Vec<u32> = text.chars().scan(0, |at, c| { let start = *at; *at += c.len_utf16() as u32; Some(start) }).collect();
            let run_starts: Vec<u32> = runs.iter().scan(0, |at, r| { let start = *at; *at += r.len; Some(start) }).collect();
            let mut errors = Vec::new();
            check("blocks[0]", &text, &runs, &mut errors);
            let splits = run_starts.iter().any(|s| !starts.contains(s));
            proptest::prop_assert_eq!(!errors.is_empty(), splits, "{:?} {:?}", runs, errors);
        }
    }

    #[test]
    fn a_removed_link_is_named_without_a_value_and_underline_goes_with_it() {
        let plain = Marks::default();
        let linked = Marks { link: Some("https://example.com"), underline: true, ..Marks::default() };
        let r = request(5, 9, &plain, plain.differing(&linked));
        assert_eq!(r["updateTextStyle"]["fields"], "underline,link");
        assert_eq!(r["updateTextStyle"]["textStyle"], json!({"underline": false}));
        let r = request(5, 9, &linked, linked.differing(&plain));
        assert_eq!(
            r["updateTextStyle"]["textStyle"],
            json!({"underline": true, "link": {"url": "https://example.com"}})
        );
    }
}
