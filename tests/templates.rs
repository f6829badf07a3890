//! Documents made from the business's data and documents taken out as files (SPEC section 14),
//! through the HTTP door against the sandbox's Google: templates listed with their placeholders,
//! a letter filled from a customer, an order and a subscription, placeholders that cannot be
//! filled refused before anything is made, a failure after the copy naming the copy, and a
//! document exported as a PDF a reader opens (and DOCX, text).

mod common;

use common::{bad_fields, SandboxApp};
use serde_json::{json, Value};
use staffroom::sandbox::google::GoogleFaults;

/// The text of a document as the service reads it.
async fn text_of(app: &SandboxApp, id: &str) -> String {
    let (status, read) = app.get(&format!("/api/docs/documents/{id}")).await;
    assert_eq!(status, 200, "{read}");
    let mut text = String::new();
    for element in read["document"]["body"]["content"].as_array().unwrap() {
        for run in element["paragraph"]["elements"].as_array().into_iter().flatten() {
            text.push_str(run["textRun"]["content"].as_str().unwrap_or_default());
        }
    }
    text
}

/// Some customer of the store, with an order and a subscription of theirs.
async fn a_customer_with_an_order(app: &SandboxApp) -> (Value, Value) {
    let (_, orders) = app.get("/api/payments/orders?status=paid&limit=50").await;
    let order = orders["orders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["customerId"].is_string() && o["name"].is_string())
        .expect("a paid order with a customer")
        .clone();
    let (status, customer) =
        app.get(&format!("/api/payments/customers/{}", order["customerId"].as_str().unwrap())).await;
    assert_eq!(status, 200, "{customer}");
    (customer["customer"].clone(), order)
}

#[tokio::test]
async fn templates_are_listed_with_their_placeholders_and_a_letter_is_filled_from_a_customer() {
    let app = SandboxApp::start().await;
    let (status, list) = app.get("/api/docs/templates").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["folderId"], "fld_templates");
    let names: Vec<&str> = list["templates"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Order confirmation", "Renewal notice", "Welcome letter"], "by name");
    let welcome = list["templates"].as_array().unwrap().iter().find(|t| t["name"] == "Welcome letter").unwrap();
    assert_eq!(welcome["placeholders"], json!(["today", "customer.name", "customer.email", "staff.name"]));

    let (customer, _) = a_customer_with_an_order(&app).await;
    let name = customer["name"].as_str().unwrap();
    let made = json!({
        "templateId": welcome["id"], "name": format!("Welcome — {name}"), "customerId": customer["id"],
        "folderId": "fld_operations"
    });
    let (status, answer) = app.post("/api/docs/documents/from-template", made).await;
    assert_eq!(status, 201, "{answer}");
    let id = answer["document"]["id"].as_str().unwrap().to_string();
    assert_eq!(answer["document"]["name"], format!("Welcome — {name}"));
    assert!(app.google().documents_in("fld_operations").contains(&id), "made in the folder asked for");
    let text = text_of(&app, &id).await;
    assert!(text.contains(&format!("Dear {name},")), "{text}");
    assert!(text.contains(customer["email"].as_str().unwrap()), "{text}");
    assert!(text.contains("Demo Admin"), "the staff member's name: {text}");
    assert!(!text.contains("{{"), "every placeholder filled: {text}");
    // The name took the bold of the placeholder it replaced.
    let (_, read) = app.get(&format!("/api/docs/documents/{id}")).await;
    let bold_name = read["document"]["body"]["content"].as_array().unwrap().iter().any(|element| {
        element["paragraph"]["elements"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|run| run["textRun"]["content"] == name && run["textRun"]["style"]["bold"] == true)
    });
    assert!(bold_name, "the customer's name is bold, as the placeholder was: {}", read["document"]["body"]["content"]);
    // The template itself is untouched.
    assert!(text_of(&app, welcome["id"].as_str().unwrap()).await.contains("{{customer.name}}"));

    let (_, log) = app.get("/api/audit?action=docs.from_template").await;
    let detail: Value = serde_json::from_str(log[0]["detail"].as_str().unwrap()).unwrap();
    assert_eq!(
        (detail["name"].as_str(), detail["template"].as_str()),
        (Some(&*format!("Welcome — {name}")), Some("Welcome letter"))
    );
    assert_eq!(log[0]["target"], id);
}

#[tokio::test]
async fn an_order_and_a_subscription_fill_their_own_and_the_customers_placeholders_and_the_customer_is_invited() {
    let app = SandboxApp::start().await;
    let (_, list) = app.get("/api/docs/templates").await;
    let template =
        |name: &str| list["templates"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap()["id"].clone();
    let (_, order) = a_customer_with_an_order(&app).await;
    let made = json!({"templateId": template("Order confirmation"), "name": "Confirmation", "orderId": order["id"], "shareWith": "commenter"});
    let (status, answer) = app.post("/api/docs/documents/from-template", made).await;
    assert_eq!(status, 201, "{answer}");
    let id = answer["document"]["id"].as_str().unwrap();
    assert!(
        !app.google().documents_in("fld_templates").iter().any(|d| d == id),
        "a letter made without a folder goes to My Drive, not among the templates"
    );
    let (_, templates) = app.get("/api/docs/templates").await;
    assert_eq!(templates["templates"].as_array().unwrap().len(), 3, "still three templates");
    let text = text_of(&app, id).await;
    let number = format!("#{}", order["orderNumber"]);
    let cents = order["total"].as_i64().unwrap();
    assert!(text.contains(&format!("This confirms order {number} of ")), "{text}");
    assert!(text.contains(&format!("{}.{:02}", cents / 100, cents % 100)), "the total as money: {text}");
    assert!(text.contains(&format!("Hello {},", order["name"].as_str().unwrap())), "{text}");
    let invited = app.google().permissions(id);
    assert!(
        invited.iter().any(|p| p["emailAddress"] == order["email"] && p["role"] == "commenter"),
        "the order's customer is a commenter: {invited:?}"
    );

    let (_, subscriptions) = app.get("/api/payments/subscriptions?status=active&limit=1").await;
    let subscription = &subscriptions["subscriptions"][0];
    let made =
        json!({"templateId": template("Renewal notice"), "name": "Renewal", "subscriptionId": subscription["id"]});
    let (status, answer) = app.post("/api/docs/documents/from-template", made).await;
    assert_eq!(status, 201, "{answer}");
    let text = text_of(&app, answer["document"]["id"].as_str().unwrap()).await;
    assert!(
        text.contains(&format!("Your {} subscription renews on ", subscription["productName"].as_str().unwrap())),
        "{text}"
    );
}

#[tokio::test]
async fn placeholders_that_cannot_be_filled_are_refused_before_anything_is_made_and_a_failure_after_the_copy_names_it()
{
    let app = SandboxApp::start().await;
    let (_, list) = app.get("/api/docs/templates").await;
    let order_confirmation =
        list["templates"].as_array().unwrap().iter().find(|t| t["name"] == "Order confirmation").unwrap()["id"].clone();
    let (customer, _) = a_customer_with_an_order(&app).await;
    let files = app.google().file_count();

    // Known placeholders with nothing to fill them.
    let made = json!({"templateId": order_confirmation, "name": "No order", "customerId": customer["id"]});
    let (status, refused) = app.post("/api/docs/documents/from-template", made).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["error"]["details"]["placeholders"], json!(["order.number", "order.date", "order.total"]));
    assert!(refused["error"]["message"].as_str().unwrap().contains("nothing was created"));

    // A placeholder Staffroom does not know, in a template someone wrote.
    let odd = json!({"name": "Odd template", "folderId": "fld_templates", "content": "Hi {{customer.name}}, your {{favourite.colour}} mug."});
    let (status, created) = app.post("/api/docs/documents", odd).await;
    assert_eq!(status, 201, "{created}");
    let files = files + 1;
    let made = json!({"templateId": created["document"]["id"], "name": "Mug", "customerId": customer["id"]});
    let (status, refused) = app.post("/api/docs/documents/from-template", made).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["error"]["details"]["placeholders"], json!(["favourite.colour"]));
    assert!(refused.to_string().contains("is not a placeholder Staffroom fills"), "{refused}");
    assert_eq!(app.google().file_count(), files, "no copy was made");

    // Bad input, each field named.
    let (status, refused) = app
        .post("/api/docs/documents/from-template", json!({"templateId": "bad id", "name": " ", "shareWith": "owner"}))
        .await;
    assert_eq!(status, 400);
    assert_eq!(bad_fields(&refused), ["templateId", "name", "shareWith"]);
    let (status, refused) = app
        .post(
            "/api/docs/documents/from-template",
            json!({"templateId": order_confirmation, "name": "x", "shareWith": "reader"}),
        )
        .await;
    assert_eq!(status, 400, "no customer to invite: {refused}");

    // The copy is made, then inviting the customer fails: the error names the copy.
    app.google().set_faults(GoogleFaults { sharing_blocked: true, ..Default::default() });
    let welcome =
        list["templates"].as_array().unwrap().iter().find(|t| t["name"] == "Welcome letter").unwrap()["id"].clone();
    let made = json!({"templateId": welcome, "name": "Blocked", "customerId": customer["id"], "shareWith": "reader"});
    let (status, failed) = app.post("/api/docs/documents/from-template", made).await;
    app.google().set_faults(GoogleFaults::default());
    assert_ne!(status, 201, "{failed}");
    let copy = failed["error"]["details"]["documentId"].as_str().expect("the copy is named").to_string();
    assert!(failed["error"]["message"].as_str().unwrap().contains(&copy), "{failed}");
    assert!(
        text_of(&app, &copy).await.contains(customer["name"].as_str().unwrap()),
        "the copy was filled before the invitation"
    );
}

#[tokio::test]
async fn a_document_is_exported_as_a_pdf_a_reader_opens_and_as_docx_and_text() {
    let app = SandboxApp::start().await;
    let (_, list) = app.get("/api/docs/templates").await;
    let welcome =
        list["templates"].as_array().unwrap().iter().find(|t| t["name"] == "Welcome letter").unwrap()["id"].clone();
    let made = json!({"templateId": welcome, "name": "Welcome — Zoë", "customerId": a_customer_with_an_order(&app).await.0["id"]});
    let (_, made) = app.post("/api/docs/documents/from-template", made).await;
    let id = made["document"]["id"].as_str().unwrap();
    let name = text_of(&app, id).await.lines().find(|l| l.starts_with("Dear ")).unwrap().to_string();

    let get = |format: &str| {
        let url = format!("{}/api/docs/documents/{id}/export{format}", app.base);
        let token = app.token.clone();
        async move { common::client().get(url).bearer_auth(token).send().await.unwrap() }
    };
    let pdf = get("").await;
    assert_eq!(pdf.status(), 200);
    assert_eq!(pdf.headers()["content-type"], "application/pdf");
    let disposition = pdf.headers()["content-disposition"].to_str().unwrap().to_string();
    assert!(
        disposition.starts_with(
            "attachment; filename=\"Welcome _ Zo_.pdf\"; filename*=UTF-8''Welcome%20%E2%80%94%20Zo%C3%AB.pdf"
        ),
        "{disposition}"
    );
    let bytes = pdf.bytes().await.unwrap();
    let document = lopdf::Document::load_mem(&bytes).expect("a PDF a reader opens");
    let text = document.extract_text(&[1]).unwrap();
    assert!(text.contains("Welcome — Zoë") && text.contains(&name), "{text}");

    let docx = get("?format=docx").await;
    assert_eq!(
        docx.headers()["content-type"],
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    );
    assert!(docx.bytes().await.unwrap().starts_with(b"PK"), "a zip package");
    let txt = get("?format=txt").await;
    assert_eq!(txt.headers()["content-type"], "text/plain");
    assert!(txt.text().await.unwrap().contains(&name));

    let bad = get("?format=odt").await;
    assert_eq!(bad.status(), 400);
    let (_, log) = app.get("/api/audit?action=docs.export").await;
    assert_eq!(log.as_array().unwrap().len(), 3, "each download audited: {log}");
}
