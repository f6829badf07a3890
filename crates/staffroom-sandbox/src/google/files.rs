//! Drive's `files.copy` and `files.export` as the simulator serves them (Drive v3's discovery
//! document and its "Export MIME types" guide): a copy of a Google document with a new id and
//! name, and a document as a real PDF, a real DOCX or UTF-8 text.

use std::io::Write;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::doc::SimDoc;
use super::{
    add_own_file, answer_new_file, file_not_found, google_error, Access, Params, QueryParams, Sim, SimFile, DOC_MIME,
    FOLDER_MIME,
};

/// What Drive exports a Google document to (of those Staffroom asks for).
const PDF: &str = "application/pdf";
const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const TEXT: &str = "text/plain";
/// Drive's limit on an exported file ("Exported content is limited to 10 MB").
pub const EXPORT_LIMIT: usize = 10 * 1024 * 1024;

/// `POST /drive/v3/files/{fileId}/copy`: a copy of a Google document (the sandbox copies
/// documents only), owned by the user, named as asked or "Copy of …", in the folder asked or
/// the source's.
pub async fn copy_file(
    State(sim): State<Arc<Sim>>,
    Path(source_id): Path<String>,
    QueryParams(params): Params,
    body: axum::body::Bytes,
) -> Response {
    let body = if body.is_empty() {
        Value::Object(Default::default())
    } else {
        match serde_json::from_slice::<Value>(&body) {
            Ok(body @ Value::Object(_)) => body,
            _ => return google_error(StatusCode::BAD_REQUEST, "parseError", "Parse Error", None, None),
        }
    };
    let all_drives = params.get("supportsAllDrives").is_some_and(|v| v == "true");
    let mut data = sim.data.lock().unwrap();
    let visible = |f: &&SimFile| {
        f.id == source_id && !f.trashed && f.access != Access::None && (f.drive_id.is_none() || all_drives)
    };
    let Some(source) = data.files.iter().find(visible).cloned() else { return file_not_found(&source_id) };
    if source.mime_type == FOLDER_MIME {
        return google_error(
            StatusCode::FORBIDDEN,
            "cannotCopyFile",
            "This file cannot be copied by the user.",
            None,
            None,
        );
    }
    if body.get("mimeType").is_some_and(|mime| !mime.is_null() && mime.as_str() != Some(source.mime_type.as_str())) {
        // A copy may convert an uploaded file to a Google format; a Google document is copied
        // as it is (Drive's wording for a conversion it refuses: GAMADV-XTD3#332).
        return google_error(
            StatusCode::BAD_REQUEST,
            "badRequest",
            "The requested conversion is not supported.",
            None,
            None,
        );
    }
    let parents = match body.get("parents") {
        None => source.parents.clone(),
        Some(_) => match super::parents_of(&body) {
            Ok(parents) => parents,
            Err(refused) => return refused,
        },
    };
    let untitled = format!("Copy of {}", source.name);
    let file = match add_own_file(&mut data, &body, &source.mime_type, parents, all_drives, &untitled) {
        Ok(file) => file,
        Err(refused) => return refused,
    };
    if let Some(doc) = data.docs.get(&source_id).cloned() {
        data.docs.insert(file.id.clone(), SimDoc { id: file.id.clone(), title: file.name.clone(), serial: 0, ..doc });
        data.issue_revision(&file.id);
    }
    drop(data);
    answer_new_file(&sim, &file, &params)
}

/// `GET /drive/v3/files/{fileId}/export?mimeType=…`: a Google document as a file.
pub async fn export_file(State(sim): State<Arc<Sim>>, Path(id): Path<String>, QueryParams(params): Params) -> Response {
    let Some(mime) = params.get("mimeType") else {
        return google_error(
            StatusCode::BAD_REQUEST,
            "required",
            "Required parameter: mimeType",
            None,
            Some(("parameter", "mimeType")),
        );
    };
    let (title, text) = {
        let data = sim.data.lock().unwrap();
        let Some(file) = data.files.iter().find(|f| f.id == id && f.access != Access::None && !f.trashed) else {
            return file_not_found(&id);
        };
        if file.mime_type != DOC_MIME {
            return google_error(
                StatusCode::FORBIDDEN,
                "fileNotExportable",
                "Export only supports Docs Editors files.",
                None,
                None,
            );
        }
        let Some(doc) = data.docs.get(&id) else { return file_not_found(&id) };
        (doc.title.clone(), doc.plain_text())
    };
    let bytes = match mime.as_str() {
        PDF => pdf(&title, &text),
        DOCX => docx(&text),
        TEXT => text_export(&text).into_bytes(),
        _ => {
            return google_error(
                StatusCode::BAD_REQUEST,
                "badRequest",
                "The requested conversion is not supported.",
                None,
                Some(("parameter", "mimeType")),
            )
        }
    };
    if bytes.len() > EXPORT_LIMIT {
        return google_error(
            StatusCode::FORBIDDEN,
            "exportSizeLimitExceeded",
            "This file is too large to be exported.",
            None,
            None,
        );
    }
    let content_type = if mime == TEXT { "text/plain; charset=utf-8" } else { mime.as_str() };
    ([(header::CONTENT_TYPE, content_type.to_string())], bytes).into_response()
}

/// A soft line break within a paragraph (Shift+Enter), as Docs writes it in a text run.
const SOFT_BREAK: char = '\u{b}';

/// The text export: UTF-8 with a byte order mark (as Drive's starts, googleapis/google-api-nodejs-client#2404),
/// each paragraph (and soft line break) ended by CRLF but the last, which has no line end
/// (**unverified**: no source gives Drive's line ends).
fn text_export(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end_matches('\n').split(['\n', SOFT_BREAK]).collect();
    format!("\u{feff}{}", lines.join("\r\n"))
}

/// A4 in points, its margins, and the text's size and leading.
const PAGE: (f32, f32) = (595.0, 842.0);
const MARGIN: f32 = 56.0;
const SIZE: f32 = 11.0;
const LEADING: f32 = 15.0;
/// Characters to a line: Helvetica at 11 pt averages about 5.5 pt a character.
const LINE_CHARS: usize = 86;

/// A PDF of the document: its title, then its paragraphs wrapped onto A4 pages, in Helvetica
/// (one of the standard fonts every reader has) with WinAnsi encoding, so a reader finds its text.
pub fn pdf(title: &str, text: &str) -> Vec<u8> {
    use lopdf::content::{Content, Operation};
    use lopdf::{dictionary, Document, Object, Stream};

    let mut lines: Vec<(String, f32)> = vec![(title.to_string(), 16.0), (String::new(), SIZE)];
    // A paragraph's soft line breaks (U+000B) break its lines too.
    for paragraph in text.trim_end_matches('\n').split(['\n', SOFT_BREAK]) {
        lines.extend(wrap(paragraph, LINE_CHARS).into_iter().map(|line| (line, SIZE)));
    }
    let per_page = ((PAGE.1 - 2.0 * MARGIN) / LEADING) as usize;
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let resources_id = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font_id } });
    let mut kids = Vec::new();
    for chunk in lines.chunks(per_page.max(1)) {
        let mut operations = vec![Operation::new("BT", vec![])];
        let mut y = PAGE.1 - MARGIN;
        for (line, size) in chunk {
            operations.push(Operation::new("Tf", vec!["F1".into(), (*size).into()]));
            operations
                .push(Operation::new("Tm", vec![1.into(), 0.into(), 0.into(), 1.into(), MARGIN.into(), y.into()]));
            operations.push(Operation::new("Tj", vec![Object::string_literal(win_ansi(line))]));
            y -= LEADING;
        }
        operations.push(Operation::new("ET", vec![]));
        let content = Content { operations }.encode().expect("a content stream of text operations encodes");
        let content_id = doc.add_object(Stream::new(dictionary! {}, content));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "Contents" => content_id,
        });
        kids.push(page_id.into());
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => kids,
            "Count" => count,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), PAGE.0.into(), PAGE.1.into()],
        }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("a PDF is written to memory");
    bytes
}

/// A paragraph's lines of at most `width` characters, broken between words (a word longer than
/// a line is broken inside it).
fn wrap(paragraph: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in paragraph.split(' ') {
        let mut word = word.to_string();
        while word.chars().count() > width {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            lines.push(head);
        }
        let needed = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if needed > width && !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    lines.push(line);
    lines
}

/// Text in WinAnsi (Windows-1252): Latin-1's letters as they are, its typographic marks where
/// 1252 has them, `?` for what it cannot write.
fn win_ansi(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match c {
            ' '..='~' | '\u{a0}'..='\u{ff}' => c as u8,
            '€' => 0x80,
            '‚' => 0x82,
            '„' => 0x84,
            '…' => 0x85,
            '‘' => 0x91,
            '’' => 0x92,
            '“' => 0x93,
            '”' => 0x94,
            '•' => 0x95,
            '–' => 0x96,
            '—' => 0x97,
            '™' => 0x99,
            '\t' => b' ',
            _ => b'?',
        })
        .collect()
}

/// A minimal WordprocessingML package (ECMA-376): its content types, its relationship to the
/// main part, and one `w:p` per paragraph.
pub fn docx(text: &str) -> Vec<u8> {
    let paragraphs: String =
        text.trim_end_matches('\n').split('\n').map(|p| format!("<w:p><w:r>{}</w:r></w:p>", run_content(p))).collect();
    let document = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>{paragraphs}</w:body></w:document>"#
    );
    let parts = [
        (
            "[Content_Types].xml",
            r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#.to_string(),
        ),
        (
            "_rels/.rels",
            r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"#.to_string(),
        ),
        ("word/document.xml", document),
    ];
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, content) in parts {
        zip.start_file(name, stored).expect("a zip part starts in memory");
        zip.write_all(content.as_bytes()).expect("a zip part is written to memory");
    }
    zip.finish().expect("a zip is finished in memory").into_inner()
}

/// A run's content: its text in `w:t`, a tab as `w:tab` and a soft line break as `w:br`
/// (WordprocessingML writes neither as a character).
fn run_content(text: &str) -> String {
    let mut xml = String::new();
    let mut piece = String::new();
    let flush = |xml: &mut String, piece: &mut String| {
        if !piece.is_empty() {
            xml.push_str(&format!(r#"<w:t xml:space="preserve">{}</w:t>"#, xml_escape(piece)));
            piece.clear();
        }
    };
    for c in text.chars() {
        match c {
            '\t' | SOFT_BREAK => {
                flush(&mut xml, &mut piece);
                xml.push_str(if c == '\t' { "<w:tab/>" } else { "<w:br/>" });
            }
            c => piece.push(c),
        }
    }
    flush(&mut xml, &mut piece);
    xml
}

fn xml_escape(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            other => other.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pdf_is_one_a_reader_opens_and_finds_the_text_in_with_its_accents() {
        let long = "word ".repeat(2000);
        let bytes = pdf("Welcome — Zoë Martin", &format!("Dear Zoë Martin,\n{long}\nThank you."));
        let doc = lopdf::Document::load_mem(&bytes).expect("a PDF");
        let pages = doc.get_pages();
        assert!(pages.len() >= 2, "long text runs onto more pages");
        let first = doc.extract_text(&[1]).unwrap();
        assert!(first.contains("Welcome — Zoë Martin") && first.contains("Dear Zoë Martin,"), "{first}");
        let last = doc.extract_text(&[pages.len() as u32]).unwrap();
        assert!(last.contains("Thank you."), "{last}");
    }

    #[test]
    fn a_docx_is_a_package_with_one_paragraph_per_line() {
        let bytes = docx("Dear <Zoë> & co\nSecond\n");
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        let mut document = String::new();
        std::io::Read::read_to_string(&mut archive.by_name("word/document.xml").unwrap(), &mut document).unwrap();
        assert!(document.contains("Dear &lt;Zoë&gt; &amp; co"), "{document}");
        assert_eq!(document.matches("<w:p>").count(), 2);
        assert!(archive.by_name("[Content_Types].xml").is_ok() && archive.by_name("_rels/.rels").is_ok());
    }

    #[test]
    fn tabs_and_soft_line_breaks_are_written_as_each_format_writes_them() {
        let bytes = docx("a\tb\u{b}c\n");
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        let mut document = String::new();
        std::io::Read::read_to_string(&mut archive.by_name("word/document.xml").unwrap(), &mut document).unwrap();
        assert!(
            document.contains(r#"<w:t xml:space="preserve">a</w:t><w:tab/><w:t xml:space="preserve">b</w:t><w:br/>"#),
            "{document}"
        );
        assert_eq!(text_export("Zoë\u{b}line\nnext\n"), "\u{feff}Zoë\r\nline\r\nnext");
        let pdf = lopdf::Document::load_mem(&pdf("T", "one\u{b}two\n")).unwrap();
        let text = pdf.extract_text(&[1]).unwrap();
        assert!(text.contains("one") && text.contains("two") && !text.contains('?'), "{text}");
    }

    #[test]
    fn lines_wrap_between_words() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
        assert_eq!(wrap("", 5), [""]);
    }
}
