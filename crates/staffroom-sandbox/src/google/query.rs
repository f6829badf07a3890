//! Drive's search language (`q`) and partial responses (`fields`), as the simulator parses them.
//! The grammar is `term operator value` joined by `and`, `or`, `not` and parentheses, with
//! single-quoted strings where `\'` and `\\` escape.

use serde_json::{Map, Value};

/// A parsed `q`.
#[derive(Debug, Clone, PartialEq)]
pub enum Query {
    And(Box<Query>, Box<Query>),
    Or(Box<Query>, Box<Query>),
    Not(Box<Query>),
    /// `field op value`.
    Compare {
        field: String,
        op: String,
        value: Literal,
    },
    /// `'value' in parents`.
    InParents(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Str(String),
    Bool(bool),
}

/// What a query is evaluated against.
pub struct FileView<'a> {
    pub name: &'a str,
    pub mime_type: &'a str,
    pub parents: &'a [String],
    pub trashed: bool,
    pub created_time: &'a str,
    pub modified_time: &'a str,
    pub full_text: &'a str,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Str(String),
    Op(String),
    Open,
    Close,
}

fn tokenize(q: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut chars = q.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '(' => {
                chars.next();
                tokens.push(Token::Open);
            }
            ')' => {
                chars.next();
                tokens.push(Token::Close);
            }
            '\'' => {
                chars.next();
                let mut s = String::new();
                loop {
                    match chars.next() {
                        Some('\\') => match chars.next() {
                            Some(e @ ('\'' | '\\')) => s.push(e),
                            _ => return Err("a bad escape in a string".into()),
                        },
                        Some('\'') => break,
                        Some(c) => s.push(c),
                        None => return Err("an unterminated string".into()),
                    }
                }
                tokens.push(Token::Str(s));
            }
            '=' | '!' | '<' | '>' => {
                let mut op = String::from(chars.next().unwrap());
                if chars.peek() == Some(&'=') {
                    op.push(chars.next().unwrap());
                }
                if op == "!" {
                    return Err("a lone !".into());
                }
                tokens.push(Token::Op(op));
            }
            c if c.is_alphanumeric() || c == '_' => {
                let mut word = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_alphanumeric() || c == '_' {
                        word.push(c);
                        chars.next();
                    } else {
                        break;
                    }
                }
                tokens.push(Token::Word(word));
            }
            other => return Err(format!("an unexpected character {other:?}")),
        }
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek_word(&self, word: &str) -> bool {
        matches!(self.tokens.get(self.at), Some(Token::Word(w)) if w == word)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn or(&mut self) -> Result<Query, String> {
        let mut left = self.and()?;
        while self.peek_word("or") {
            self.at += 1;
            left = Query::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Query, String> {
        let mut left = self.unary()?;
        while self.peek_word("and") {
            self.at += 1;
            left = Query::And(Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Query, String> {
        if self.peek_word("not") {
            self.at += 1;
            return Ok(Query::Not(Box::new(self.unary()?)));
        }
        match self.next() {
            Some(Token::Open) => {
                let inner = self.or()?;
                match self.next() {
                    Some(Token::Close) => Ok(inner),
                    _ => Err("a missing )".into()),
                }
            }
            Some(Token::Str(value)) => match (self.next(), self.next()) {
                (Some(Token::Word(w)), Some(Token::Word(p))) if w == "in" && p == "parents" => {
                    Ok(Query::InParents(value))
                }
                _ => Err("only 'id' in parents takes a value first".into()),
            },
            Some(Token::Word(field)) => {
                let op = match self.next() {
                    Some(Token::Op(op)) => op,
                    Some(Token::Word(w)) if w == "contains" => w,
                    _ => return Err(format!("a missing operator after {field}")),
                };
                let value = match self.next() {
                    Some(Token::Str(s)) => Literal::Str(s),
                    Some(Token::Word(w)) if w == "true" => Literal::Bool(true),
                    Some(Token::Word(w)) if w == "false" => Literal::Bool(false),
                    _ => return Err(format!("a missing value after {field} {op}")),
                };
                check_term(&field, &op, &value)?;
                Ok(Query::Compare { field, op, value })
            }
            _ => Err("a missing term".into()),
        }
    }
}

fn check_term(field: &str, op: &str, value: &Literal) -> Result<(), String> {
    let ok = match (field, value) {
        ("name", Literal::Str(_)) => matches!(op, "=" | "!=" | "contains"),
        ("mimeType", Literal::Str(_)) => matches!(op, "=" | "!="),
        ("fullText", Literal::Str(_)) => op == "contains",
        ("trashed" | "starred", Literal::Bool(_)) => matches!(op, "=" | "!="),
        ("modifiedTime" | "createdTime", Literal::Str(_)) => matches!(op, "=" | "!=" | "<" | "<=" | ">" | ">="),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{field} {op} is not a valid term"))
    }
}

/// Parses `q`.
pub fn parse(q: &str) -> Result<Query, String> {
    let mut parser = Parser { tokens: tokenize(q)?, at: 0 };
    let query = parser.or()?;
    if parser.at != parser.tokens.len() {
        return Err("trailing input".into());
    }
    Ok(query)
}

impl Query {
    pub fn matches(&self, file: &FileView) -> bool {
        match self {
            Query::And(a, b) => a.matches(file) && b.matches(file),
            Query::Or(a, b) => a.matches(file) || b.matches(file),
            Query::Not(q) => !q.matches(file),
            Query::InParents(id) => file.parents.iter().any(|p| p == id),
            Query::Compare { field, op, value } => match (field.as_str(), value) {
                ("trashed", Literal::Bool(b)) => (file.trashed == *b) == (op == "="),
                ("starred", Literal::Bool(b)) => *b != (op == "="), // nothing is starred
                ("name", Literal::Str(s)) if op == "contains" => {
                    // Drive matches name prefixes of words, case-insensitively.
                    let s = s.to_lowercase();
                    file.name.to_lowercase().split_whitespace().any(|w| w.starts_with(&s))
                        || file.name.to_lowercase().starts_with(&s)
                }
                ("fullText", Literal::Str(s)) => {
                    let s = s.to_lowercase();
                    file.name.to_lowercase().contains(&s) || file.full_text.to_lowercase().contains(&s)
                }
                (field, Literal::Str(s)) => {
                    let actual = match field {
                        "name" => file.name,
                        "mimeType" => file.mime_type,
                        "modifiedTime" => file.modified_time,
                        _ => file.created_time,
                    };
                    let ordering = actual.cmp(s.as_str());
                    match op.as_str() {
                        "=" => ordering.is_eq(),
                        "!=" => ordering.is_ne(),
                        "<" => ordering.is_lt(),
                        "<=" => ordering.is_le(),
                        ">" => ordering.is_gt(),
                        _ => ordering.is_ge(),
                    }
                }
                _ => false,
            },
        }
    }
}

/// A parsed `fields` selector: `a,b(c,d),e/f`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fields(pub Vec<(String, Option<Fields>)>);

/// Parses a `fields` selector.
pub fn parse_fields(raw: &str) -> Result<Fields, String> {
    let chars: Vec<char> = raw.chars().filter(|c| !c.is_whitespace()).collect();
    let mut at = 0;
    let fields = parse_field_list(&chars, &mut at)?;
    if at != chars.len() {
        return Err(format!("Invalid field selection {raw}"));
    }
    Ok(fields)
}

fn parse_field_list(chars: &[char], at: &mut usize) -> Result<Fields, String> {
    let mut out = Vec::new();
    loop {
        let start = *at;
        while *at < chars.len() && (chars[*at].is_alphanumeric() || chars[*at] == '_') {
            *at += 1;
        }
        let name: String = chars[start..*at].iter().collect();
        if name.is_empty() {
            return Err("Invalid field selection".into());
        }
        let sub = match chars.get(*at) {
            Some('(') => {
                *at += 1;
                let sub = parse_field_list(chars, at)?;
                if chars.get(*at) != Some(&')') {
                    return Err("Invalid field selection: missing )".into());
                }
                *at += 1;
                Some(sub)
            }
            Some('/') => {
                *at += 1;
                let inner = parse_field_list_single(chars, at)?;
                Some(inner)
            }
            _ => None,
        };
        out.push((name, sub));
        if chars.get(*at) == Some(&',') {
            *at += 1;
        } else {
            return Ok(Fields(out));
        }
    }
}

fn parse_field_list_single(chars: &[char], at: &mut usize) -> Result<Fields, String> {
    // `a/b` selects b inside a: the same as `a(b)` with one member.
    let start = *at;
    while *at < chars.len() && (chars[*at].is_alphanumeric() || chars[*at] == '_') {
        *at += 1;
    }
    let name: String = chars[start..*at].iter().collect();
    if name.is_empty() {
        return Err("Invalid field selection".into());
    }
    let sub = if chars.get(*at) == Some(&'/') {
        *at += 1;
        Some(parse_field_list_single(chars, at)?)
    } else {
        None
    };
    Ok(Fields(vec![(name, sub)]))
}

impl Fields {
    /// Keeps only the selected members of `value` (arrays are filtered element-wise); a member
    /// that the full resource does not have is an error, as at Google.
    pub fn select(
        &self,
        value: &Value,
        known: &dyn Fn(&[&str]) -> bool,
        path: &mut Vec<String>,
    ) -> Result<Value, String> {
        match value {
            Value::Array(items) => {
                items.iter().map(|v| self.select(v, known, path)).collect::<Result<Vec<_>, _>>().map(Value::Array)
            }
            Value::Object(object) => {
                let mut out = Map::new();
                for (name, sub) in &self.0 {
                    path.push(name.clone());
                    let refs: Vec<&str> = path.iter().map(String::as_str).collect();
                    if !known(&refs) {
                        return Err(format!("Invalid field selection {name}"));
                    }
                    if let Some(v) = object.get(name) {
                        let v = match sub {
                            Some(sub) => sub.select(v, known, path)?,
                            None => v.clone(),
                        };
                        out.insert(name.clone(), v);
                    }
                    path.pop();
                }
                Ok(Value::Object(out))
            }
            other => Ok(other.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view<'a>(name: &'a str, parents: &'a [String], trashed: bool) -> FileView<'a> {
        FileView {
            name,
            mime_type: "application/vnd.google-apps.document",
            parents,
            trashed,
            created_time: "2026-01-01T00:00:00Z",
            modified_time: "2026-02-01T00:00:00Z",
            full_text: "hello world",
        }
    }

    #[test]
    fn parses_the_forms_the_client_sends() {
        let q = parse("mimeType = 'application/vnd.google-apps.document' and 'fld_a' in parents and trashed = false")
            .unwrap();
        let parents = vec!["fld_a".to_string()];
        assert!(q.matches(&view("x", &parents, false)));
        assert!(!q.matches(&view("x", &parents, true)));
        assert!(!q.matches(&view("x", &[], false)));
    }

    #[test]
    fn strings_escape_quotes_and_injections_stay_strings() {
        let q = parse(r"name = 'Valentine\'s Day'").unwrap();
        assert!(q.matches(&view("Valentine's Day", &[], false)));
        let q = parse(r"'x\' or trashed = true or \'' in parents").unwrap();
        assert_eq!(q, Query::InParents("x' or trashed = true or '".into()));
        assert!(parse("'x' or trashed = true or '' in parents").is_err());
    }

    #[test]
    fn refuses_nonsense() {
        for q in ["", "name", "name = ", "name ~ 'x'", "(name = 'x'", "trashed = 'x'", "'a' in owners", "bogus = 'x'"] {
            assert!(parse(q).is_err(), "{q}");
        }
        assert!(parse("not (name contains 'a' or fullText contains 'b') and starred = false").is_ok());
    }

    #[test]
    fn fields_select_members() {
        let fields = parse_fields("nextPageToken,files(id,name)").unwrap();
        let value = serde_json::json!({"kind": "k", "nextPageToken": "t", "files": [{"id": "1", "name": "n", "mimeType": "m"}]});
        let out = fields.select(&value, &|_| true, &mut Vec::new()).unwrap();
        assert_eq!(out, serde_json::json!({"nextPageToken": "t", "files": [{"id": "1", "name": "n"}]}));
        assert!(parse_fields("files(id").is_err());
        assert!(parse_fields("files/id").is_ok());
    }
}
