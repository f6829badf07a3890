//! Secrets through the real Linux kernel keyring (keyutils): store, read, replace, delete.
//! This is the backend a headless machine uses; the desktop prefers the Secret Service.

use staffroom::secrets::{KeyringStore, Secret, SecretStore, Secrets};

#[test]
fn kernel_keyring_stores_reads_and_deletes() {
    let namespace = format!("test-{}", uuid::Uuid::new_v4().simple());
    let store = KeyringStore::keyutils(&namespace).expect("the kernel keyring is available");
    assert_eq!(store.describe(), "kernel keyring");
    assert_eq!(store.get("lemonsqueezy_api_key").unwrap(), None);

    store.set("lemonsqueezy_api_key", &Secret::new("ls_test_key_1")).unwrap();
    assert_eq!(store.get("lemonsqueezy_api_key").unwrap().unwrap().expose(), "ls_test_key_1");
    store.set("lemonsqueezy_api_key", &Secret::new("ls_test_key_2")).unwrap();
    assert_eq!(store.get("lemonsqueezy_api_key").unwrap().unwrap().expose(), "ls_test_key_2");

    // A second store object (as after a restart of the process) sees the same entry.
    let again = KeyringStore::keyutils(&namespace).unwrap();
    assert_eq!(again.get("lemonsqueezy_api_key").unwrap().unwrap().expose(), "ls_test_key_2");

    // Another installation's namespace does not.
    let other = KeyringStore::keyutils(&format!("{namespace}-other")).unwrap();
    assert_eq!(other.get("lemonsqueezy_api_key").unwrap(), None);

    store.delete("lemonsqueezy_api_key").unwrap();
    assert_eq!(again.get("lemonsqueezy_api_key").unwrap(), None);
    store.delete("lemonsqueezy_api_key").unwrap();
}

#[test]
fn the_token_key_is_created_once_in_the_kernel_keyring() {
    let namespace = format!("test-{}", uuid::Uuid::new_v4().simple());
    let secrets = Secrets::new(std::sync::Arc::new(KeyringStore::keyutils(&namespace).unwrap()));
    let first = secrets.get_or_create("jwt_key", staffroom::auth::token::generate_key).unwrap();
    let second = secrets.get_or_create("jwt_key", staffroom::auth::token::generate_key).unwrap();
    assert_eq!(first, second);
    assert_eq!(first.expose().len(), 43, "256 bits in base64url");
    secrets.delete("jwt_key").unwrap();
}
