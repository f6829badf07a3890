//! The team server backend when the server is not there: a closed port, or something that is
//! not Staffroom answering (a proxy's error page). Both are `unavailable`, naming the server, so
//! the screens can say the team server cannot be reached. (Every operation's answers and
//! refusals through this backend are compared with the core's in `doors.rs`.)

use staffroom::api::{self, Input};
use staffroom::ErrorCode;
use staffroom_desktop::backend::Backend;
use staffroom_desktop::team::TeamServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn list_products(server: &TeamServer) -> staffroom::Error {
    let operation = api::find("list_products").unwrap();
    server.call(operation, Some("a token"), Input::new()).await.expect_err("no Staffroom there")
}

#[tokio::test]
async fn a_closed_port_is_a_server_out_of_reach() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let error = list_products(&TeamServer::new(&url).unwrap()).await;
    assert_eq!(error.code, ErrorCode::Unavailable, "{error:?}");
    assert_eq!(error.message, format!("The team server {url} cannot be reached"));
    assert_eq!(error.details.unwrap()["teamServer"], url);
}

#[tokio::test]
async fn a_proxy_s_error_page_is_a_server_out_of_reach() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = [0u8; 4096];
        let _ = socket.read(&mut request).await.unwrap();
        let page = "<html><body>502 Bad Gateway</body></html>";
        let answer = format!(
            "HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
            page.len()
        );
        socket.write_all(answer.as_bytes()).await.unwrap();
    });
    let error = list_products(&TeamServer::new(&url).unwrap()).await;
    assert_eq!(error.code, ErrorCode::Unavailable, "{error:?}");
    let details = error.details.unwrap();
    assert_eq!((details["teamServer"].as_str(), details["status"].as_u64()), (Some(url.as_str()), Some(502)));
}

#[test]
fn only_https_or_loopback_is_accepted() {
    let refused = TeamServer::new("http://staff.example.com").err().expect("plain http beyond loopback");
    assert_eq!(refused.code, ErrorCode::InvalidRequest);
    assert_eq!(TeamServer::new("https://staff.example.com/").unwrap().url(), "https://staff.example.com");
}
