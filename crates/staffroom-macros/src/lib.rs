//! `#[request]`: a request type's fields state their bounds once, in `#[field(...)]`, and the
//! attribute writes from that one statement both the field's `#[schema(...)]` bounds (for the
//! OpenAPI document and the UI's types) and the type's `Request::from_input`, which reads every
//! field and refuses with every bad one named (`api::Fields`).
//!
//! ```ignore
//! #[request]
//! #[derive(Serialize, ts_rs::TS, utoipa::ToSchema)]
//! #[serde(rename_all = "camelCase")]
//! pub struct RefundRequest {
//!     #[field(pattern = "^[A-Za-z0-9-]{1,64}$", message = "is not a valid id")]
//!     pub id: String,
//!     #[field(min = 1, max = 2147483647)]
//!     pub amount: Option<u32>,
//! }
//! ```
//!
//! What a field may say (an `Option` field may be absent; any other is required):
//! - `min = N, max = M`: a whole number from N to M (`u32` or `u64`), as JSON or a query string;
//!   the schema's `minimum` and `maximum`.
//! - `pattern = "regex", message = "..."`: a string matching the pattern, else `message`; the
//!   schema's `pattern`.
//! - `check = path, message = "..."`: a string for which `path(&str) -> bool` holds, else
//!   `message` (for rules a pattern cannot say; the schema says what it can on its own).
//! - `text`: any string (its rules are the service's).
//! - `choice`: one of a text enum's `NAMES`.
//! - `flag`: `true` or `false`.
//! - `with = path`: read by `path(&mut Fields) -> T`, for a field with rules of its own.
//!
//! On the struct, `#[request(only = "message")]` refuses any field it does not declare.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Fields, Ident, ItemStruct, Lit, LitStr, Meta, Path, Token, Type};

#[proc_macro_attribute]
pub fn request(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut item = syn::parse_macro_input!(item as ItemStruct);
    match expand(args.into(), &mut item) {
        Ok(parser) => quote!(#item #parser).into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// How one field is read.
enum Kind {
    Number { min: Expr, max: Expr },
    Pattern { pattern: LitStr, message: LitStr },
    Check { check: Path, message: LitStr },
    Text,
    Choice,
    Flag,
    With(Path),
}

struct Field {
    ident: Ident,
    /// The field's name in the input (camelCase when the struct says so).
    name: String,
    /// The type inside `Option`, and whether the field is optional.
    inner: Type,
    optional: bool,
    kind: Kind,
}

fn expand(args: Tokens, item: &mut ItemStruct) -> syn::Result<Tokens> {
    let only = parse_only(args)?;
    let camel = renames_to_camel_case(&item.attrs);
    let Fields::Named(named) = &mut item.fields else {
        return Err(syn::Error::new_spanned(&item.ident, "#[request] needs a struct with named fields"));
    };
    let mut fields = Vec::new();
    for field in named.named.iter_mut() {
        let ident = field.ident.clone().expect("named");
        let Some(position) = field.attrs.iter().position(|a| a.path().is_ident("field")) else {
            return Err(syn::Error::new_spanned(&ident, "every field of a #[request] needs #[field(...)]"));
        };
        if let Some(serde) = field.attrs.iter().find(|a| a.path().is_ident("serde") && renames_or_skips(a)) {
            return Err(syn::Error::new_spanned(
                serde,
                "#[request] reads a field by its own name (camelCase when the struct says so): rename, alias, skip or flatten it in a hand-written from_input",
            ));
        }
        let attribute = field.attrs.remove(position);
        let kind = parse_kind(&attribute)?;
        if let Some(schema) = schema_of(&kind) {
            field.attrs.push(syn::parse_quote!(#[schema(#schema)]));
        }
        let raw = ident.to_string();
        if !camel && raw.contains('_') {
            return Err(syn::Error::new_spanned(
                &ident,
                "a multi-word field needs #[serde(rename_all = \"camelCase\")]",
            ));
        }
        let name = if camel { heck::ToLowerCamelCase::to_lower_camel_case(raw.as_str()) } else { raw };
        let (inner, optional) = match option_of(&field.ty) {
            Some(inner) => (inner.clone(), true),
            None => (field.ty.clone(), false),
        };
        fields.push(Field { ident, name, inner, optional, kind });
    }
    Ok(parser(&item.ident, &fields, only))
}

fn parse_only(args: Tokens) -> syn::Result<Option<LitStr>> {
    if args.is_empty() {
        return Ok(None);
    }
    let meta: Meta = syn::parse2(args)?;
    match meta {
        Meta::NameValue(nv) if nv.path.is_ident("only") => Ok(Some(string_of(&nv.value)?)),
        other => Err(syn::Error::new_spanned(other, "expected #[request] or #[request(only = \"message\")]")),
    }
}

/// Whether the struct has `#[serde(rename_all = "camelCase")]`.
fn renames_to_camel_case(attrs: &[Attribute]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("serde")).any(|a| {
        let mut camel = false;
        let _ = a.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                camel = meta.value()?.parse::<LitStr>()?.value() == "camelCase";
            } else if meta.input.peek(Token![=]) {
                meta.value()?.parse::<Expr>()?;
            }
            Ok(())
        });
        camel
    })
}

/// Whether a field's `#[serde(...)]` changes the name it is read by, or whether it is read.
fn renames_or_skips(attribute: &Attribute) -> bool {
    let mut found = false;
    let _ = attribute.parse_nested_meta(|meta| {
        if ["rename", "alias", "skip", "skip_deserializing", "flatten"].iter().any(|name| meta.path.is_ident(name)) {
            found = true;
        }
        if meta.input.peek(Token![=]) {
            meta.value()?.parse::<Expr>()?;
        }
        Ok(())
    });
    found
}

fn option_of(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first()? {
        syn::GenericArgument::Type(inner) => Some(inner),
        _ => None,
    }
}

fn string_of(expr: &Expr) -> syn::Result<LitStr> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Ok(s.clone()),
        other => Err(syn::Error::new_spanned(other, "expected a string")),
    }
}

fn path_of(expr: &Expr) -> syn::Result<Path> {
    match expr {
        Expr::Path(p) => Ok(p.path.clone()),
        other => Err(syn::Error::new_spanned(other, "expected a path to a function")),
    }
}

fn parse_kind(attribute: &Attribute) -> syn::Result<Kind> {
    let items =
        Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attribute.meta.require_list()?.tokens.clone())?;
    let mut values = std::collections::HashMap::new();
    let mut words = Vec::new();
    for item in &items {
        match item {
            Meta::Path(p) => words.push(p.get_ident().map(Ident::to_string).unwrap_or_default()),
            Meta::NameValue(nv) => {
                values.insert(nv.path.get_ident().map(Ident::to_string).unwrap_or_default(), nv.value.clone());
            }
            Meta::List(l) => return Err(syn::Error::new_spanned(l, "unexpected list")),
        }
    }
    let message = |values: &std::collections::HashMap<String, Expr>| match values.get("message") {
        Some(m) => string_of(m),
        None => Err(syn::Error::new_spanned(attribute, "a pattern or a check needs message = \"...\"")),
    };
    let keys: std::collections::BTreeSet<&str> = values.keys().map(String::as_str).collect();
    let keys: Vec<&str> = keys.into_iter().collect();
    let word = match (words.as_slice(), keys.is_empty()) {
        ([word], true) => Some(word.as_str()),
        _ => None,
    };
    let kind = match (word, keys.as_slice()) {
        (Some("text"), _) => Kind::Text,
        (Some("choice"), _) => Kind::Choice,
        (Some("flag"), _) => Kind::Flag,
        (None, ["max", "min"]) if words.is_empty() => {
            Kind::Number { min: values["min"].clone(), max: values["max"].clone() }
        }
        (None, ["message", "pattern"]) if words.is_empty() => {
            Kind::Pattern { pattern: string_of(&values["pattern"])?, message: message(&values)? }
        }
        (None, ["check", "message"]) if words.is_empty() => {
            Kind::Check { check: path_of(&values["check"])?, message: message(&values)? }
        }
        (None, ["with"]) if words.is_empty() => Kind::With(path_of(&values["with"])?),
        _ => {
            return Err(syn::Error::new_spanned(
                attribute,
                "expected one of: min = N, max = M | pattern = \"..\", message = \"..\" | check = path, message = \"..\" | text | choice | flag | with = path",
            ))
        }
    };
    Ok(kind)
}

/// The schema bounds a kind states.
fn schema_of(kind: &Kind) -> Option<Tokens> {
    match kind {
        Kind::Number { min, max } => Some(quote!(minimum = #min, maximum = #max)),
        Kind::Pattern { pattern, .. } => Some(quote!(pattern = #pattern)),
        _ => None,
    }
}

/// The local a field is read into: prefixed, so that no field name shadows `__fields` or a
/// function the attribute calls.
fn local(ident: &Ident) -> Ident {
    Ident::new(&format!("__{ident}"), ident.span())
}

/// The statements reading one field into its local.
fn read(field: &Field) -> Tokens {
    let Field { ident, name, inner, optional, kind } = field;
    let value = local(ident);
    // A required field that was not read has a problem named, so that `finish` never builds
    // the value without it.
    let required = (!optional).then(|| {
        quote! {
            if __fields.value(#name).is_none() {
                __fields.problem(#name, "is required");
            } else if #value.is_none() && !__fields.has_problem(#name) {
                __fields.problem(#name, "is not valid");
            }
        }
    });
    let reading = match kind {
        Kind::Number { min, max } => quote! {
            let #value = __fields.whole_number(#name, #min, #max).map(<#inner as ::core::convert::From<u32>>::from);
        },
        Kind::Choice => quote! {
            let #value = __fields.choice(#name, <#inner>::NAMES).and_then(<#inner>::parse);
        },
        Kind::Flag => quote! {
            let #value = __fields.flag(#name);
        },
        Kind::Text => quote! {
            let #value = __fields.string(#name).map(str::to_owned);
        },
        Kind::Pattern { pattern, message } => quote! {
            let #value = __fields.string(#name).map(str::to_owned);
            static PATTERN: ::std::sync::LazyLock<::staffroom_base::request::Regex> =
                ::std::sync::LazyLock::new(|| ::staffroom_base::request::Regex::new(#pattern).expect("a valid pattern"));
            if #value.as_deref().is_some_and(|value| !PATTERN.is_match(value)) {
                __fields.problem(#name, #message);
            }
        },
        Kind::Check { check, message } => quote! {
            let #value = __fields.string(#name).map(str::to_owned);
            if #value.as_deref().is_some_and(|value| !#check(value)) {
                __fields.problem(#name, #message);
            }
        },
        Kind::With(path) => return quote!(let #value = #path(&mut __fields);),
    };
    quote! {
        // Each field in a block of its own, so that the statics of two patterns do not meet.
        let #value = { #reading #required #value };
    }
}

fn parser(ty: &Ident, fields: &[Field], only: Option<LitStr>) -> Tokens {
    let only = only.map(|message| {
        let names = fields.iter().map(|f| f.name.as_str());
        quote!(__fields.only(&[#(#names),*], #message);)
    });
    let reads = fields.iter().map(read);
    let finish = fields.iter().map(|Field { ident, optional, kind, .. }| {
        let value = local(ident);
        match (kind, optional) {
            (Kind::With(_), _) | (_, true) => quote!(#ident: #value),
            // Present whenever no field was refused, which is when `finish` calls this.
            (_, false) => quote!(#ident: #value.expect("checked")),
        }
    });
    quote! {
        impl ::staffroom_base::request::Request for #ty {
            fn from_input(input: &::staffroom_base::request::Input) -> ::staffroom_base::error::Result<Self> {
                let mut __fields = ::staffroom_base::request::Fields::new(input);
                #only
                #(#reads)*
                __fields.finish(|| #ty { #(#finish),* })
            }
        }
    }
}
