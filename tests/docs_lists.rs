//! Lists kept whole: an everyday edit of a list's items (Enter at the end of an item, an item
//! removed, its text changed, Tab and Shift+Tab) keeps the list Docs holds, its id and every
//! level's glyphs, on lists shaped as Docs returns them: `kix.` ids, nine levels with glyph,
//! format and indents, some made with a preset and some whose glyphs were changed by hand (a
//! circle under numbers). Each plan is applied by the simulator, which makes a new list wherever
//! Docs would.

use proptest::prelude::*;
use serde_json::{json, Value};
use staffroom::docs::lists::ListItem;
use staffroom::docs::model::{Alignment, Document};
use staffroom::docs::planner::{editable_blocks, plan, EditBlock, StyledRun};
use staffroom::sandbox::google::doc::{Piece, SimDoc};

/// A list's look: each of levels 0, 1 and 2 (then again) as (glyph, format); a glyph in capitals
/// is a numbered level's glyphType.
struct Look {
    id: &'static str,
    levels: [(&'static str, &'static str); 3],
}

/// Made with Docs' "Bulleted list" button (BULLET_DISC_CIRCLE_SQUARE).
const BULLETS: Look = Look { id: "kix.m6yi3wvzwcl5", levels: [("●", "%0"), ("○", "%1"), ("■", "%2")] };
/// Made with Docs' "Numbered list" button (NUMBERED_DECIMAL_ALPHA_ROMAN).
const NUMBERS: Look = Look { id: "kix.4bq1t0y3k8wd", levels: [("DECIMAL", "%0."), ("ALPHA", "%1."), ("ROMAN", "%2.")] };
/// Numbered, its second level's glyph changed by hand to a circle: no preset has this look.
const HAND_MADE: Look = Look { id: "kix.goals0x1", levels: [("DECIMAL", "%0."), ("○", "%1"), ("■", "%2")] };
/// Bulleted with arrows and dashes chosen by hand.
const HAND_BULLETS: Look = Look { id: "kix.h2r9arrows", levels: [("➤", "%0"), ("-", "%1"), ("■", "%2")] };

const LOOKS: [&Look; 4] = [&BULLETS, &NUMBERS, &HAND_MADE, &HAND_BULLETS];

/// A list's `lists` entry as Docs returns it: nine levels, each with its glyph, format, indents
/// (36 points a level) and the fields Docs fills in.
fn list_entry(look: &Look) -> Value {
    let levels: Vec<Value> = (0..9)
        .map(|n| {
            let (glyph, format) = look.levels[n % 3];
            let format = format.replace(&format!("%{}", n % 3), &format!("%{n}"));
            let mut level = json!({
                "bulletAlignment": "START",
                "glyphFormat": format,
                "indentFirstLine": {"magnitude": 18 + 36 * n, "unit": "PT"},
                "indentStart": {"magnitude": 36 + 36 * n, "unit": "PT"},
                "textStyle": {"underline": false},
                "startNumber": 1,
            });
            if glyph.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                level["glyphType"] = json!(glyph);
            } else {
                level["glyphSymbol"] = json!(glyph);
            }
            level
        })
        .collect();
    json!({"listProperties": {"nestingLevels": levels}})
}

/// One paragraph of the seeded document: its text and its place (look, level) if a list item.
type Seeded = (String, Option<(usize, u8)>);

fn build(paragraphs: &[Seeded]) -> SimDoc {
    let mut doc = SimDoc::new("d", "Lists", "rev0".into());
    for (text, place) in paragraphs {
        let mut style = json!({"namedStyleType": "NORMAL_TEXT", "direction": "LEFT_TO_RIGHT"});
        if let Some((look, level)) = place {
            let look = LOOKS[*look];
            style["_bullet"] = json!({"listId": look.id, "nestingLevel": level, "textStyle": {}});
            style["indentFirstLine"] = json!({"magnitude": 18 + 36 * u32::from(*level), "unit": "PT"});
            style["indentStart"] = json!({"magnitude": 36 + 36 * u32::from(*level), "unit": "PT"});
        }
        doc.push_pieces(style, &[Piece::Text(text, json!({}))]);
    }
    for look in LOOKS {
        doc.lists.insert(look.id.into(), list_entry(look));
    }
    doc.finish_seed();
    doc
}

fn read(doc: &SimDoc) -> Document {
    serde_json::from_value(doc.to_json("SUGGESTIONS_INLINE")).unwrap()
}

/// Each paragraph's text and (list id, level).
fn places(blocks: &[EditBlock]) -> Vec<(String, Option<(String, u8)>)> {
    blocks
        .iter()
        .map(|b| match b {
            EditBlock::Paragraph { text, list, .. } => (text.clone(), list.as_ref().map(|l| (l.id.clone(), l.level))),
            other => panic!("only paragraphs here: {other:?}"),
        })
        .collect()
}

/// A new item as the editor sends it after Enter at the end of `after`: same list, same level.
fn item_after(after: &EditBlock, text: &str) -> EditBlock {
    let EditBlock::Paragraph { list, .. } = after else { panic!("a paragraph") };
    EditBlock::Paragraph {
        text: text.into(),
        style: "NORMAL_TEXT".into(),
        alignment: Some(Alignment::Start),
        runs: Some(vec![StyledRun { len: text.encode_utf16().count() as u32, ..StyledRun::default() }]),
        list: list.clone(),
    }
}

fn level_mut(block: &mut EditBlock) -> &mut u8 {
    match block {
        EditBlock::Paragraph { list: Some(ListItem { level, .. }), .. } => level,
        other => panic!("a list item: {other:?}"),
    }
}

/// Applies `requests` and checks the outcome: the edited places exactly, and no list made anew
/// (every list of the base still there with its glyphs, and no other).
fn apply_and_check(sim: &mut SimDoc, blocks: &[EditBlock], requests: &[Value]) -> Result<(), String> {
    let lists_before = sim.lists.clone();
    sim.batch_update(requests).map_err(|e| format!("{}: {requests:?}", e.0))?;
    let got = editable_blocks(&read(sim));
    if places(&got) != places(blocks) {
        return Err(format!("places {:?} != {:?}: {requests:?}", places(&got), places(blocks)));
    }
    if sim.lists != lists_before {
        return Err(format!("a list was made anew: {requests:?}"));
    }
    Ok(())
}

fn kinds(requests: &[Value]) -> Vec<&str> {
    requests.iter().map(|r| r.as_object().unwrap().keys().next().unwrap().as_str()).collect()
}

/// The document: fruit in a numbered list whose second level is a circle, twelve items
/// over three levels, between two plain paragraphs.
fn fruit() -> Vec<Seeded> {
    let hand = 2;
    let items: [(&str, u8); 12] = [
        ("Apples", 0),
        ("Eating", 1),
        ("Cox", 2),
        ("Braeburn", 2),
        ("Cooking", 1),
        ("Bramley", 2),
        ("Pears", 0),
        ("Conference", 1),
        ("Comice", 1),
        ("Plums", 0),
        ("Victoria", 1),
        ("Damsons", 0),
    ];
    let mut out = vec![("Orchard".to_string(), None)];
    out.extend(items.iter().map(|(t, l)| (t.to_string(), Some((hand, *l)))));
    out.push(("Harvest in September.".to_string(), None));
    out
}

#[test]
fn an_item_added_after_a_nested_item_is_one_newline_in_that_list() {
    let mut sim = build(&fruit());
    let base = read(&sim);
    let mut blocks = editable_blocks(&base);
    let jazz = item_after(&blocks[4], "Jazz");
    blocks.insert(5, jazz);
    let requests = plan(&base, &blocks).unwrap();
    assert_eq!(
        kinds(&requests),
        ["insertText", "updateParagraphStyle", "updateTextStyle"],
        "a newline and the new paragraph's own look, nothing else: {requests:?}"
    );
    assert!(requests[0]["insertText"]["text"] == "\nJazz", "{requests:?}");
    apply_and_check(&mut sim, &blocks, &requests).unwrap();
}

#[test]
fn an_item_added_at_a_lists_end_removed_or_reworded_keeps_the_list() {
    // At the end of the list (a plain paragraph after it), and at the end of a nested level.
    for at in [12, 3, 9] {
        let mut sim = build(&fruit());
        let base = read(&sim);
        let mut blocks = editable_blocks(&base);
        let new = item_after(&blocks[at], "New");
        blocks.insert(at + 1, new);
        let requests = plan(&base, &blocks).unwrap();
        assert!(!requests.iter().any(|r| r.get("createParagraphBullets").is_some()), "{requests:?}");
        apply_and_check(&mut sim, &blocks, &requests).unwrap();
    }
    // Removed: the first item, a nested one, the last.
    for at in [1, 5, 12] {
        let mut sim = build(&fruit());
        let base = read(&sim);
        let mut blocks = editable_blocks(&base);
        blocks.remove(at);
        let requests = plan(&base, &blocks).unwrap();
        assert_eq!(kinds(&requests), ["deleteContentRange"], "{requests:?}");
        apply_and_check(&mut sim, &blocks, &requests).unwrap();
    }
}

#[test]
fn tab_and_shift_tab_in_a_list_made_with_a_preset_rebullet_the_item_alone_and_it_rejoins() {
    // The fruit again, in the list Docs' "Numbered list" button makes.
    let seeded: Vec<Seeded> = fruit().into_iter().map(|(t, p)| (t, p.map(|(_, l)| (1, l)))).collect();
    for (at, change) in [(4, 1i8), (4, -1), (7, 1), (11, -1)] {
        let mut sim = build(&seeded);
        let base = read(&sim);
        let mut blocks = editable_blocks(&base);
        let level = level_mut(&mut blocks[at]);
        *level = level.saturating_add_signed(change);
        let requests = plan(&base, &blocks).unwrap();
        let create = requests.iter().find_map(|r| r.get("createParagraphBullets")).expect("bulleted again");
        assert_eq!(create["bulletPreset"], "NUMBERED_DECIMAL_ALPHA_ROMAN");
        let delete = requests.iter().find_map(|r| r.get("deleteParagraphBullets")).expect("its bullet deleted");
        let paragraph = &read(&sim).body.content[at + 1];
        assert_eq!(
            (delete["range"]["startIndex"].as_i64(), delete["range"]["endIndex"].as_i64()),
            (Some(paragraph.start_index.into()), Some(paragraph.end_index.into())),
            "that item alone: {requests:?}"
        );
        apply_and_check(&mut sim, &blocks, &requests).unwrap();
    }
}

#[test]
fn a_level_changed_in_a_hand_made_list_makes_the_list_again_as_docs_allows_no_other_way() {
    // Docs has no request that sets an item's level, and a hand-made look is no preset to join.
    let mut sim = build(&fruit());
    let base = read(&sim);
    let mut blocks = editable_blocks(&base);
    *level_mut(&mut blocks[4]) = 1;
    let requests = plan(&base, &blocks).unwrap();
    sim.batch_update(&requests).unwrap();
    let got = editable_blocks(&read(&sim));
    let ids: std::collections::BTreeSet<String> =
        places(&got).into_iter().filter_map(|(_, p)| p.map(|(id, _)| id)).collect();
    assert_eq!(ids.len(), 1, "still one list: {requests:?}");
    let levels: Vec<Option<u8>> = places(&got).into_iter().map(|(_, p)| p.map(|(_, l)| l)).collect();
    let wanted: Vec<Option<u8>> = places(&blocks).into_iter().map(|(_, p)| p.map(|(_, l)| l)).collect();
    assert_eq!(levels, wanted);
}

/// An everyday edit of one item: Enter at its end, removed, reworded, Tab, Shift+Tab, Backspace
/// at its start (its text joins the item before).
#[derive(Debug, Clone)]
enum Edit {
    AddAfter(usize),
    JoinBefore(usize),
    Remove(usize),
    Reword(usize),
    Indent(usize),
    Outdent(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => any::<usize>().prop_map(Edit::AddAfter),
        2 => any::<usize>().prop_map(Edit::Remove),
        1 => any::<usize>().prop_map(Edit::Reword),
        2 => any::<usize>().prop_map(Edit::Indent),
        2 => any::<usize>().prop_map(Edit::Outdent),
        1 => any::<usize>().prop_map(Edit::JoinBefore),
    ]
}

/// Several lists of random looks and nesting, each after a plain paragraph, and a plain last one.
fn document() -> impl Strategy<Value = Vec<Seeded>> {
    let list = (0..LOOKS.len(), prop::collection::vec(0u8..3, 1..6));
    prop::collection::vec(list, 1..4).prop_map(|lists| {
        let mut out = Vec::new();
        let mut used = std::collections::BTreeSet::new();
        for (n, (look, levels)) in lists.into_iter().enumerate() {
            // One list per look: each look has one id.
            if !used.insert(look) {
                continue;
            }
            out.push((format!("Heading {n}"), None));
            let mut previous = 0;
            for (k, level) in levels.into_iter().enumerate() {
                // A list starts at the top, and goes at most one level deeper at a time.
                let level = if k == 0 { 0 } else { level.min(previous + 1) };
                out.push((format!("item {n}.{k}"), Some((look, level))));
                previous = level;
            }
        }
        out.push(("The end.".into(), None));
        out
    })
}

/// Applies an edit to the item it lands on (`n` modulo the items); an edit Docs offers no way to
/// make in place (a level changed in a hand-made list, a list's first item changed in level or
/// removed) is skipped.
fn apply(blocks: &mut Vec<EditBlock>, edit: &Edit, added: &mut usize) {
    let items: Vec<usize> =
        (0..blocks.len()).filter(|&i| matches!(&blocks[i], EditBlock::Paragraph { list: Some(_), .. })).collect();
    let pick = |n: usize| items[n % items.len()];
    let id = |b: &EditBlock| match b {
        EditBlock::Paragraph { list, .. } => list.as_ref().map(|l| l.id.clone()),
        _ => None,
    };
    let presets = [BULLETS.id, NUMBERS.id];
    match *edit {
        Edit::AddAfter(n) => {
            let at = pick(n);
            *added += 1;
            let new = item_after(&blocks[at], &format!("new {added}"));
            blocks.insert(at + 1, new);
        }
        Edit::Remove(n) => {
            // Not a list's first item: the item after it would become first at its own level,
            // which Docs cannot give an existing list.
            let at = pick(n);
            if id(&blocks[at - 1]) == id(&blocks[at]) {
                blocks.remove(at);
            }
        }
        Edit::JoinBefore(n) => {
            let at = pick(n);
            if id(&blocks[at - 1]) == id(&blocks[at]) {
                let EditBlock::Paragraph { text: joined, .. } = blocks.remove(at) else { unreachable!() };
                if let EditBlock::Paragraph { text, runs, .. } = &mut blocks[at - 1] {
                    text.push_str(&joined);
                    *runs = Some(vec![StyledRun { len: text.encode_utf16().count() as u32, ..StyledRun::default() }]);
                }
            }
        }
        Edit::Reword(n) => {
            if let EditBlock::Paragraph { text, runs, .. } = &mut blocks[pick(n)] {
                text.push_str(" (ripe)");
                runs.get_or_insert_with(Vec::new).push(StyledRun { len: 7, ..StyledRun::default() });
            }
        }
        Edit::Indent(n) | Edit::Outdent(n) => {
            let at = pick(n);
            let first_of_its_list = id(&blocks[at - 1]) != id(&blocks[at]);
            if first_of_its_list || !id(&blocks[at]).is_some_and(|id| presets.contains(&id.as_str())) {
                return;
            }
            let level = level_mut(&mut blocks[at]);
            *level = match edit {
                Edit::Indent(_) => (*level + 1).min(8),
                _ => level.saturating_sub(1),
            };
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Every item that stays keeps its list and level, every new item joins its neighbour's list,
    /// and no list is made anew (the simulator makes one wherever Docs would).
    #[test]
    fn everyday_item_edits_keep_every_list_whole(seeded in document(), edits in prop::collection::vec(edit(), 1..6)) {
        let mut sim = build(&seeded);
        let base = read(&sim);
        let mut blocks = editable_blocks(&base);
        let mut added = 0;
        for e in &edits {
            apply(&mut blocks, e, &mut added);
        }
        let requests = plan(&base, &blocks).expect("a valid edit plans");
        apply_and_check(&mut sim, &blocks, &requests).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn enter_inside_an_item_and_backspace_at_an_items_start_keep_the_list() {
    // Enter in the middle of "Braeburn": one newline, both halves in the item's place.
    let mut sim = build(&fruit());
    let base = read(&sim);
    let mut blocks = editable_blocks(&base);
    let EditBlock::Paragraph { text, runs, .. } = &mut blocks[4] else { panic!() };
    *text = "Brae".into();
    *runs = Some(vec![StyledRun { len: 4, ..StyledRun::default() }]);
    let burn = item_after(&blocks[4], "burn");
    blocks.insert(5, burn);
    let requests = plan(&base, &blocks).unwrap();
    assert_eq!(
        requests[0],
        json!({"insertText": {"location": {"index": base.body.content[5].start_index + 4}, "text": "\n"}})
    );
    assert!(!requests.iter().any(|r| r.to_string().contains("Bullets")), "{requests:?}");
    apply_and_check(&mut sim, &blocks, &requests).unwrap();

    // Backspace at the start of "Braeburn": its text joins "Cox", which keeps its place and text.
    let mut sim = build(&fruit());
    let base = read(&sim);
    let mut blocks = editable_blocks(&base);
    let braeburn = blocks.remove(4);
    let (EditBlock::Paragraph { text, runs, .. }, EditBlock::Paragraph { text: more, .. }) =
        (&mut blocks[3], &braeburn)
    else {
        panic!()
    };
    text.push_str(more);
    *runs = Some(vec![StyledRun { len: text.len() as u32, ..StyledRun::default() }]);
    let requests = plan(&base, &blocks).unwrap();
    let cox_end = base.body.content[4].end_index - 1;
    assert!(
        requests.iter().any(|r| *r == json!({"insertText": {"location": {"index": cox_end}, "text": "Braeburn"}})),
        "the text goes to the end of Cox: {requests:?}"
    );
    assert!(!requests.iter().any(|r| r.to_string().contains("Bullets")), "{requests:?}");
    apply_and_check(&mut sim, &blocks, &requests).unwrap();
}

#[test]
fn a_list_pasted_into_a_list_made_with_a_preset_joins_it_whole() {
    // Three items pasted after "Cox" (level 2): one at Cox's level, two a level up and down.
    let seeded: Vec<Seeded> = fruit().into_iter().map(|(t, p)| (t, p.map(|(_, l)| (1, l)))).collect();
    let mut sim = build(&seeded);
    let base = read(&sim);
    let mut blocks = editable_blocks(&base);
    let pasted: Vec<EditBlock> = [("Gala", 2u8), ("Russet", 1), ("Egremont", 2)]
        .into_iter()
        .map(|(text, level)| {
            let mut item = item_after(&blocks[3], text);
            *level_mut(&mut item) = level;
            item
        })
        .collect();
    blocks.splice(4..4, pasted);
    let requests = plan(&base, &blocks).unwrap();
    // No item of the list is bulleted again but the two whose level no neighbour gives.
    let bulleted: u64 = requests
        .iter()
        .filter_map(|r| r.get("createParagraphBullets"))
        .map(|c| c["range"]["endIndex"].as_u64().unwrap() - c["range"]["startIndex"].as_u64().unwrap())
        .sum();
    assert!(bulleted < 40, "only the pasted items: {requests:?}");
    apply_and_check(&mut sim, &blocks, &requests).unwrap();
}
