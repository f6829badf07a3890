//! SQLite keeps live events in a file of their own beside the database (a writer there would
//! otherwise hold the database's one write lock while the webhook receiver waits to commit):
//! one writer task stores what is queued, many at a time in one transaction, and only then hands
//! each event, with its id, to the streams.

use crate::Sql as _;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension};
use tokio::sync::{broadcast, mpsc};

use super::Sqlite;
use staffroom_core::error::{Error, Result};
use staffroom_core::events::store::{EventKeeping, EventLog, Streams};
use staffroom_core::events::{EventKind, LiveEvent, Since, BATCH, PRUNE_EVERY, RETENTION};

/// The events' own SQLite file in the data dir.
pub const EVENTS_FILE: &str = "events.sqlite3";
/// The `events_meta` key of the highest id deleted by pruning: a client that saw less has
/// missed some.
const PRUNED_THROUGH_KEY: &str = "pruned_through";

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS events (
        id INTEGER PRIMARY KEY AUTOINCREMENT, -- never given twice, even after pruning
        at INTEGER NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS events_at ON events (at);
    CREATE TABLE IF NOT EXISTS events_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
";

/// The events' SQLite file: one connection, used on the blocking pool.
#[derive(Clone)]
pub struct SqliteEvents(Arc<Mutex<Connection>>);

impl SqliteEvents {
    fn open(data_dir: &Path) -> Result<SqliteEvents> {
        let path = data_dir.join(EVENTS_FILE);
        let conn = Connection::open(&path).sql()?;
        conn.busy_timeout(Duration::from_secs(5)).sql()?;
        conn.pragma_update(None, "journal_mode", "WAL").sql()?;
        // Durable before any client sees it: after a power cut, an id a client has seen must not
        // be given again to another event, which that client would then skip.
        conn.pragma_update(None, "synchronous", "FULL").sql()?;
        conn.execute_batch(SCHEMA).sql()?;
        // The WAL and shared-memory files are private like the rest of the data dir.
        staffroom_core::data_dir::tighten(data_dir)?;
        Ok(SqliteEvents(Arc::new(Mutex::new(conn))))
    }

    async fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let conn = self.0.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn =
                conn.lock().map_err(|_| Error::internal("events", "the events database lock is poisoned"))?;
            f(&mut conn)
        })
        .await?
    }

    async fn transaction<T: Send + 'static>(
        &self,
        f: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.call(move |conn| {
            let tx = conn.transaction().sql()?;
            let out = f(&tx)?;
            tx.commit().sql()?;
            Ok(out)
        })
        .await
    }
}

#[async_trait::async_trait]
impl EventKeeping for Sqlite {
    async fn start_events(
        &self,
        data_dir: &Path,
        incoming: mpsc::UnboundedReceiver<(EventKind, String)>,
        streams: Streams,
    ) -> Result<Arc<dyn EventLog>> {
        let dir = data_dir.to_path_buf();
        let events = tokio::task::spawn_blocking(move || SqliteEvents::open(&dir)).await??;
        tokio::spawn(write_events(events.clone(), incoming, streams.live));
        Ok(Arc::new(events))
    }
}

#[async_trait::async_trait]
impl EventLog for SqliteEvents {
    async fn since(&self, last_seen: i64, limit: usize) -> Result<Since> {
        self.call(move |conn| {
            let latest = latest_id(conn).sql()?;
            let pruned_through: i64 = conn
                .query_row("SELECT value FROM events_meta WHERE key = ?1", [PRUNED_THROUGH_KEY], |row| {
                    row.get::<_, String>(0)
                })
                .optional()
                .sql()?
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            if last_seen < pruned_through || last_seen > latest {
                return Ok(Since::Reset { latest });
            }
            let mut statement =
                conn.prepare_cached("SELECT id, kind, data FROM events WHERE id > ?1 ORDER BY id LIMIT ?2").sql()?;
            let events = statement
                .query_map(rusqlite::params![last_seen, limit as i64], |row| {
                    Ok(LiveEvent { id: row.get(0)?, kind: crate::get_enum(row, 1)?, data: row.get(2)? })
                })
                .sql()?
                .collect::<rusqlite::Result<Vec<_>>>()
                .sql()?;
            Ok(Since::Events(events))
        })
        .await
    }

    async fn latest(&self) -> Result<i64> {
        self.call(|conn| Ok(latest_id(conn).sql()?)).await
    }
}

/// The writer: stores whatever is queued in one transaction, then sends it; deletes events past
/// their retention now and then.
async fn write_events(
    db: SqliteEvents,
    mut incoming: mpsc::UnboundedReceiver<(EventKind, String)>,
    live: broadcast::Sender<Arc<LiveEvent>>,
) {
    let mut last_prune = tokio::time::Instant::now() - PRUNE_EVERY;
    let mut batch = Vec::with_capacity(BATCH);
    while incoming.recv_many(&mut batch, BATCH).await > 0 {
        let pending = std::mem::take(&mut batch);
        let prune = last_prune.elapsed() >= PRUNE_EVERY;
        let stored = db
            .transaction(move |tx| {
                let mut stored = Vec::with_capacity(pending.len());
                let now = staffroom_core::time::now_unix();
                {
                    let mut insert =
                        tx.prepare_cached("INSERT INTO events (at, kind, data) VALUES (?1, ?2, ?3)").sql()?;
                    for (kind, data) in pending {
                        insert.execute(rusqlite::params![now, kind.as_str(), data]).sql()?;
                        stored.push(LiveEvent { id: tx.last_insert_rowid(), kind, data });
                    }
                }
                if prune {
                    prune_old(tx, now - RETENTION.as_secs() as i64)?;
                }
                Ok(stored)
            })
            .await;
        if prune {
            last_prune = tokio::time::Instant::now();
        }
        match stored {
            Ok(stored) => {
                for event in stored {
                    let _ = live.send(Arc::new(event));
                }
            }
            Err(err) => tracing::error!(error = %err, "live events could not be stored; streams will miss them"),
        }
    }
}

/// The highest id ever given to an event (AUTOINCREMENT never gives one again, even after a
/// delete), 0 before the first.
fn latest_id(conn: &rusqlite::Connection) -> rusqlite::Result<i64> {
    Ok(conn
        .query_row("SELECT seq FROM sqlite_sequence WHERE name = 'events'", [], |row| row.get(0))
        .optional()?
        .unwrap_or(0))
}

/// Deletes events older than `before` (unix seconds) and records the highest id deleted.
fn prune_old(tx: &rusqlite::Transaction<'_>, before: i64) -> Result<()> {
    let highest: Option<i64> = tx
        .query_row("SELECT MAX(id) FROM events WHERE at < ?1", [before], |row| row.get(0))
        .optional()
        .sql()?
        .flatten();
    if let Some(highest) = highest {
        tx.execute("DELETE FROM events WHERE id <= ?1", [highest]).sql()?;
        tx.execute(
            "INSERT INTO events_meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2",
            rusqlite::params![PRUNED_THROUGH_KEY, highest.to_string()],
        )
        .sql()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use staffroom_core::events::EventHub;

    #[tokio::test]
    async fn an_id_that_was_pruned_or_never_issued_gets_a_reset() {
        let dir = tempfile::tempdir().unwrap();
        let db = staffroom_core::store::Db::new(crate::Sqlite::open(dir.path()).unwrap());
        let hub = EventHub::start(&*db, dir.path()).await.unwrap();
        let mut live = hub.subscribe();
        for n in 0..3 {
            hub.publish(EventKind::DocumentSaved, &format!("doc-{n}"));
        }
        for _ in 0..3 {
            live.recv().await.unwrap();
        }
        // The first two are a day and a minute old.
        let old = staffroom_core::time::now_unix() - RETENTION.as_secs() as i64 - 60;
        // On a connection of the test's own to the events' file, as the writer would prune.
        let mut conn = Connection::open(dir.path().join(EVENTS_FILE)).unwrap();
        let tx = conn.transaction().unwrap();
        tx.execute("UPDATE events SET at = ?1 WHERE id <= 2", [old]).unwrap();
        prune_old(&tx, staffroom_core::time::now_unix() - RETENTION.as_secs() as i64).unwrap();
        tx.commit().unwrap();

        assert_eq!(hub.since(1, 10).await.unwrap(), Since::Reset { latest: 3 }, "event 2 is gone");
        let Since::Events(after_two) = hub.since(2, 10).await.unwrap() else { panic!("a reset after 2") };
        assert_eq!(after_two.len(), 1, "nothing after 2 is gone");
        assert_eq!(hub.since(99, 10).await.unwrap(), Since::Reset { latest: 3 }, "not an id of this database");
    }
}
