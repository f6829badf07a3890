//! The shape of the house (docs/ARCHITECTURE.md), checked on the source itself: no crate over
//! 12,000 non-blank lines, and no circle of more than two files among the modules of any crate
//! (a module that names another through `crate::`, `super::` or `self::` depends on it; a
//! module declaring its children does not, by that alone).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most non-blank lines (tests in the same files included) one crate may hold.
const MOST_LINES: usize = 12_000;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every crate's source folder: ours under `crates/`, the wiring (`src/`), the desktop shell.
fn crates() -> Vec<(String, PathBuf)> {
    let mut all = vec![
        ("staffroom".to_string(), root().join("src")),
        ("staffroom-desktop".to_string(), root().join("src-tauri/src")),
    ];
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        if dir.join("src").is_dir() {
            all.push((dir.file_name().unwrap().to_string_lossy().into_owned(), dir.join("src")));
        }
    }
    all.sort();
    all
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// A file's module path within its crate: `lib.rs` is the root, `a/mod.rs` and `a.rs` are `a`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "lib" | "main" | "mod") {
        parts.push(stem.to_string());
    }
    parts
}

/// The code of a file without its comments (a path in a doc comment is no dependency).
fn code(text: &str) -> String {
    text.lines().map(|line| line.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The modules `text` (the code of the module `here`) names, as paths from the crate's root.
fn named_modules(text: &str, here: &[String]) -> Vec<Vec<String>> {
    let path = regex::Regex::new(r"\b(crate|super|self)((?:::\w+)+|::\{([^}]*)\})").unwrap();
    let mut named = Vec::new();
    for found in path.captures_iter(text) {
        let base: Vec<String> = match &found[1] {
            "crate" => Vec::new(),
            "super" => here[..here.len().saturating_sub(1)].to_vec(),
            _ => here.to_vec(),
        };
        let tails: Vec<Vec<String>> = match found.get(3) {
            Some(group) => group
                .as_str()
                .split(',')
                .map(|item| vec![item.trim().split("::").next().unwrap_or("").to_string()])
                .collect(),
            None => vec![found[2].split("::").filter(|p| !p.is_empty()).map(str::to_string).collect()],
        };
        for tail in tails {
            let mut full = base.clone();
            // `super::super::x`
            let mut rest = tail.as_slice();
            while rest.first().is_some_and(|p| p == "super") {
                full.pop();
                rest = &rest[1..];
            }
            full.extend(rest.iter().cloned());
            named.push(full);
        }
    }
    named
}

/// The longest prefix of `path` that is one of `modules`.
fn resolve<'a>(path: &[String], modules: &'a BTreeMap<Vec<String>, PathBuf>) -> Option<(&'a Vec<String>, usize)> {
    (0..=path.len()).rev().find_map(|n| modules.get_key_value(&path[..n]).map(|(k, _)| (k, n)))
}

/// A module that only declares modules and re-exports (a crate's index): a path through it is a
/// dependency on where the name comes from, not on the index.
struct Index {
    /// Names re-exported one by one, and the module path each comes from (`None`: another crate).
    names: BTreeMap<String, Option<Vec<String>>>,
    /// The modules re-exported whole (`pub use self::service::*`).
    globs: Vec<Vec<String>>,
}

/// The index `text` (the code of module `here`) is, if it is one.
fn index_of(text: &str, here: &[String], modules: &BTreeMap<Vec<String>, PathBuf>) -> Option<Index> {
    let statements: Vec<String> =
        text.split(';').map(|s| s.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|s| !s.is_empty()).collect();
    let declares = |s: &str| {
        let s = s.trim_start_matches(|c: char| c == '#' || c == '[').trim();
        s.starts_with("pub mod ")
            || s.starts_with("mod ")
            || s.starts_with("use ")
            || s.starts_with("pub use ")
            || s.starts_with("cfg(")
            || s.starts_with("pub(crate) mod ")
    };
    if !statements
        .iter()
        .all(|s| s.lines().all(|_| true) && s.split(']').next_back().is_some_and(|last| declares(last.trim())))
    {
        return None;
    }
    let mut index = Index { names: BTreeMap::new(), globs: Vec::new() };
    for statement in statements {
        let statement = statement.split(']').next_back().unwrap().trim();
        let Some(path) = statement.strip_prefix("pub use ") else { continue };
        let (prefix, items) = match path.split_once("::{") {
            Some((prefix, items)) => {
                (prefix.to_string(), items.trim_end_matches('}').split(',').map(|i| i.trim().to_string()).collect())
            }
            None => {
                let (prefix, item) = path.rsplit_once("::").unwrap_or(("", path));
                (prefix.to_string(), vec![item.to_string()])
            }
        };
        let mut from: Vec<String> = Vec::new();
        let mut internal = true;
        for (n, part) in prefix.split("::").filter(|p| !p.is_empty()).enumerate() {
            match (n, part) {
                (0, "crate") => {}
                (0, "self") => from = here.to_vec(),
                (0, "super") | (_, "super") => {
                    if n == 0 {
                        from = here.to_vec();
                    }
                    from.pop();
                }
                (0, first) if !modules.contains_key(&[here, &[first.to_string()]].concat()) => internal = false,
                (0, first) => from = [here, &[first.to_string()]].concat(),
                (_, next) => from.push(next.to_string()),
            }
        }
        for item in items {
            let name = item.rsplit(" as ").next().unwrap_or(&item).trim().to_string();
            let source = item.split(" as ").next().unwrap_or(&item).trim().to_string();
            if !internal {
                if name != "*" {
                    index.names.insert(name, None);
                }
            } else if name == "*" {
                index.globs.push(from.clone());
            } else {
                let mut module = from.clone();
                module.push(source);
                let found = resolve(&module, modules).map(|(m, _)| m.clone());
                index.names.insert(name, found.or(Some(from.clone())));
            }
        }
    }
    Some(index)
}

/// Whether `module`'s code defines `name`.
fn defines(text: &str, name: &str) -> bool {
    ["struct", "enum", "fn", "trait", "type", "const", "static", "mod"]
        .iter()
        .any(|kind| text.contains(&format!("pub {kind} {name}")) || text.contains(&format!("pub async {kind} {name}")))
}

/// The strongly connected sets of `graph` with more than one module (Tarjan).
fn circles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'g Vec<String>, usize>,
        low: BTreeMap<&'g Vec<String>, usize>,
        stack: Vec<&'g Vec<String>>,
        on_stack: BTreeSet<&'g Vec<String>>,
        found: Vec<Vec<Vec<String>>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, node: &'g Vec<String>) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.graph.get(node).into_iter().flatten() {
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[next].min(self.low[node]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.index[next].min(self.low[node]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut set = Vec::new();
                while let Some(member) = self.stack.pop() {
                    self.on_stack.remove(member);
                    set.push(member.clone());
                    if member == node {
                        break;
                    }
                }
                if set.len() > 1 {
                    self.found.push(set);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node) {
            walk.visit(node);
        }
    }
    walk.found
}

/// A circle of three files or more within `together` (modules that all reach one another), if
/// there is one.
fn longer_circle(
    together: &[Vec<String>],
    graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
) -> Option<Vec<Vec<String>>> {
    let members: BTreeSet<&Vec<String>> = together.iter().collect();
    fn walk<'g>(
        path: &mut Vec<&'g Vec<String>>,
        graph: &'g BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        members: &BTreeSet<&'g Vec<String>>,
    ) -> bool {
        let here = *path.last().unwrap();
        for next in graph.get(here).into_iter().flatten().filter(|n| members.contains(n)) {
            if next == path[0] && path.len() >= 3 {
                return true;
            }
            if !path.contains(&next) {
                path.push(next);
                if walk(path, graph, members) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    together.iter().find_map(|start| {
        let mut path = vec![start];
        walk(&mut path, graph, &members).then(|| path.into_iter().cloned().collect())
    })
}

#[test]
fn no_crate_holds_more_than_twelve_thousand_lines() {
    let mut over = Vec::new();
    for (name, src) in crates() {
        let lines: usize = rust_files(&src)
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap().lines().filter(|l| !l.trim().is_empty()).count())
            .sum();
        println!("{name}: {lines} non-blank lines");
        if lines > MOST_LINES {
            over.push(format!("{name} ({lines})"));
        }
    }
    assert!(over.is_empty(), "over {MOST_LINES} non-blank lines: {over:?}");
}

#[test]
fn no_crate_s_modules_form_a_circle_of_more_than_two_files() {
    let mut found = Vec::new();
    for (name, src) in crates() {
        let files = rust_files(&src);
        let modules: BTreeMap<Vec<String>, PathBuf> = files.iter().map(|f| (module_of(&src, f), f.clone())).collect();
        let texts: BTreeMap<Vec<String>, String> =
            modules.iter().map(|(m, f)| (m.clone(), code(&std::fs::read_to_string(f).unwrap()))).collect();
        let indexes: BTreeMap<Vec<String>, Index> =
            texts.iter().filter_map(|(m, text)| Some((m.clone(), index_of(text, m, &modules)?))).collect();
        // Where a path leads: through an index, to where the name it re-exports comes from.
        let target = |path: &[String]| -> Vec<Vec<String>> {
            let mut path = path.to_vec();
            for _ in 0..8 {
                let Some((module, used)) = resolve(&path, &modules) else { return Vec::new() };
                let (Some(index), Some(name)) = (indexes.get(module), path.get(used)) else {
                    return vec![module.clone()];
                };
                match index.names.get(name) {
                    Some(None) => return Vec::new(),
                    Some(Some(from)) => path = [from.clone(), path[used + 1..].to_vec()].concat(),
                    None => {
                        return index
                            .globs
                            .iter()
                            .filter(|glob| texts.get(*glob).is_some_and(|text| defines(text, name)))
                            .cloned()
                            .collect();
                    }
                }
            }
            Vec::new()
        };
        if std::env::var_os("HOUSE_DEBUG").is_some() {
            println!("{name}: indexes {:?}", indexes.keys().collect::<Vec<_>>());
        }
        let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        // An index's own re-exports are not its dependencies: paths through it lead past it.
        for (module, text) in texts.iter().filter(|(m, _)| !indexes.contains_key(*m)) {
            let edges = graph.entry(module.clone()).or_default();
            for named in named_modules(text, module) {
                for to in target(&named) {
                    if &to != module {
                        edges.insert(to);
                    }
                }
            }
        }
        let file = |m: &Vec<String>| modules[m].strip_prefix(root()).unwrap().display().to_string();
        for together in circles(&graph) {
            // Modules that all reach one another: two-file circles about one hub (a trait's
            // module and those implementing it) are, but a longer circle is what is refused.
            match longer_circle(&together, &graph) {
                Some(circle) => {
                    found.push(format!("{name}: {}", circle.iter().map(file).collect::<Vec<_>>().join(" → ")))
                }
                None => println!("{name}: two-file circles among {:?}", together.iter().map(file).collect::<Vec<_>>()),
            }
        }
    }
    assert!(found.is_empty(), "circles of more than two files:\n{}", found.join("\n"));
}
