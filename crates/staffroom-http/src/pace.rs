//! How fast a client must move to keep its connection's place: a request's body must arrive, and
//! an answer must be taken, at [`MIN_RATE`] at least. A client that trickles a byte now and then,
//! or stops reading an answer (an event stream included), would otherwise keep its place for as
//! long as it likes, and enough of them would keep everyone else out.

use std::future::Future as _;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// The slowest a body may arrive or an answer be taken, in bytes per second (a 4 kbit/s link).
pub const MIN_RATE: u64 = 512;
/// A body's first seconds are not held to the rate (a client may pause after the head).
pub const BODY_GRACE: Duration = Duration::from_secs(5);
/// How long an answer is watched while it waits for the client, before its rate is judged.
pub const ANSWER_WINDOW: Duration = Duration::from_secs(10);

/// A body's pace: when it is too slow, given what has arrived since its head.
pub struct BodyPace {
    head: Instant,
    received: u64,
}

impl BodyPace {
    pub fn new(head: Instant) -> BodyPace {
        BodyPace { head, received: 0 }
    }

    /// Counts `bytes` more arrived.
    pub fn arrived(&mut self, bytes: usize) {
        self.received = self.received.saturating_add(bytes as u64);
    }

    /// The moment the body falls below the rate if nothing more arrives: the grace, then a
    /// second for every [`MIN_RATE`] bytes received.
    pub fn too_slow_at(&self) -> Instant {
        let earned = Duration::from_secs_f64(self.received as f64 / MIN_RATE as f64);
        self.head + BODY_GRACE + earned.min(Duration::from_secs(3600))
    }
}

/// A connection's byte stream whose writes fail once the client has taken less than
/// [`MIN_RATE`] over an [`ANSWER_WINDOW`] in which writes waited for it: the connection then
/// closes and its place is free. A client that reads keeps the window from ever closing on it.
pub struct Paced<S> {
    inner: S,
    /// Open while writes wait for the client: since when, and what it took meanwhile.
    window: Option<Window>,
}

struct Window {
    ends: Pin<Box<Sleep>>,
    taken: u64,
}

impl Window {
    fn open() -> Window {
        Window { ends: Box::pin(tokio::time::sleep(ANSWER_WINDOW)), taken: 0 }
    }
}

impl<S> Paced<S> {
    pub fn new(inner: S) -> Paced<S> {
        Paced { inner, window: None }
    }

    /// A write waits for the client: the window opens (if it is not open), and when it ends, the
    /// client must have taken enough meanwhile, or the write fails.
    fn waiting<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let window = self.window.get_or_insert_with(Window::open);
        while window.ends.as_mut().poll(cx).is_ready() {
            if window.taken < MIN_RATE * ANSWER_WINDOW.as_secs() {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the client stopped taking its answer",
                )));
            }
            *window = Window::open();
        }
        Poll::Pending
    }

    fn took(&mut self, bytes: usize) {
        if let Some(window) = &mut self.window {
            window.taken = window.taken.saturating_add(bytes as u64);
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Paced<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Paced<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, buf) {
            Poll::Ready(Ok(n)) => {
                self.took(n);
                Poll::Ready(Ok(n))
            }
            Poll::Pending => self.waiting(cx),
            failed => failed,
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write_vectored(cx, bufs) {
            Poll::Ready(Ok(n)) => {
                self.took(n);
                Poll::Ready(Ok(n))
            }
            Poll::Pending => self.waiting(cx),
            failed => failed,
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_flush(cx) {
            // Everything written has left: nothing waits for the client any more.
            Poll::Ready(Ok(())) => {
                self.window = None;
                Poll::Ready(Ok(()))
            }
            Poll::Pending => self.waiting(cx),
            failed => failed,
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_earns_a_second_for_every_512_bytes_after_its_grace() {
        let head = Instant::now();
        let mut pace = BodyPace::new(head);
        assert_eq!(pace.too_slow_at(), head + BODY_GRACE);
        pace.arrived(1);
        assert!(pace.too_slow_at() < head + BODY_GRACE + Duration::from_millis(2), "a byte earns almost nothing");
        pace.arrived(1023);
        assert_eq!(pace.too_slow_at(), head + BODY_GRACE + Duration::from_secs(2));
    }

    /// A stream whose writes always wait (a client that reads nothing), or whose each write is
    /// taken at once.
    struct Client {
        reads: bool,
    }

    impl AsyncWrite for Client {
        fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
            if self.reads {
                Poll::Ready(Ok(buf.len()))
            } else {
                Poll::Pending
            }
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_nobody_takes_fails_after_its_window_and_one_taken_never_does() {
        use tokio::io::AsyncWriteExt;
        let mut stuck = Paced::new(Client { reads: false });
        let started = Instant::now();
        let failed = stuck.write_all(b"an answer").await.unwrap_err();
        assert_eq!(failed.kind(), io::ErrorKind::TimedOut);
        assert_eq!(started.elapsed(), ANSWER_WINDOW);

        let mut taken = Paced::new(Client { reads: true });
        for _ in 0..100 {
            taken.write_all(&[0; 4096]).await.unwrap();
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}
