//! How much this app reads of what a team server sends: an answer, or one live event, of any
//! size would otherwise be held in memory whole, and a hostile or broken server could take all
//! of it. Past these limits the answer is refused, or the event stream ends (and reconnects).

use bytes::Bytes;
use futures_util::{Stream, StreamExt};

/// The largest answer read: a page of a list or a long document is a few megabytes.
pub const MAX_ANSWER_BYTES: usize = 32 * 1024 * 1024;
/// The largest live event read: events name what changed, they never carry a document.
pub const MAX_EVENT_BYTES: usize = 1024 * 1024;

/// Reads `response`'s body, up to [`MAX_ANSWER_BYTES`].
pub async fn read_answer(mut response: reqwest::Response) -> Result<Vec<u8>, ReadError> {
    if response.content_length().is_some_and(|length| length > MAX_ANSWER_BYTES as u64) {
        return Err(ReadError::TooLarge);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(ReadError::Http)? {
        if body.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(ReadError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A failed read of an answer.
#[derive(Debug)]
pub enum ReadError {
    Http(reqwest::Error),
    TooLarge,
}

/// `stream` (an event stream's bytes) ended with an error once an event grows past
/// [`MAX_EVENT_BYTES`] before its blank line.
pub fn bounded_events<S, E>(stream: S) -> impl Stream<Item = Result<Bytes, BoundedError<E>>>
where
    S: Stream<Item = Result<Bytes, E>>,
{
    let mut since_boundary = 0usize;
    let mut last = 0u8;
    stream.map(move |chunk| {
        let chunk = chunk.map_err(BoundedError::Inner)?;
        for &byte in chunk.iter() {
            // An event ends at a blank line ("\n\n"; a "\r" before each "\n" changes nothing).
            if byte == b'\n' && last == b'\n' {
                since_boundary = 0;
            } else if byte != b'\r' {
                since_boundary += 1;
            }
            if byte != b'\r' {
                last = byte;
            }
            if since_boundary > MAX_EVENT_BYTES {
                return Err(BoundedError::TooLarge);
            }
        }
        Ok(chunk)
    })
}

/// An event stream's error: its own, or an event past the limit.
#[derive(Debug)]
pub enum BoundedError<E> {
    Inner(E),
    TooLarge,
}

impl<E: std::fmt::Display> std::fmt::Display for BoundedError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BoundedError::Inner(error) => error.fmt(f),
            BoundedError::TooLarge => write!(f, "an event of more than {MAX_EVENT_BYTES} bytes"),
        }
    }
}

impl<E: std::fmt::Debug + std::fmt::Display> std::error::Error for BoundedError<E> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(parts: Vec<Vec<u8>>) -> impl Stream<Item = Result<Bytes, std::convert::Infallible>> {
        futures_util::stream::iter(parts.into_iter().map(|p| Ok(Bytes::from(p))))
    }

    #[tokio::test]
    async fn events_of_any_number_pass_and_one_too_large_ends_the_stream() {
        let event = b"event: webhook\ndata: {\"a\":1}\n\n".to_vec();
        let many: Vec<Vec<u8>> = (0..100_000).map(|_| event.clone()).collect();
        let passed: Vec<_> = bounded_events(chunks(many)).collect().await;
        assert!(passed.iter().all(Result::is_ok), "small events, however many");

        let mut huge = b"event: webhook\ndata: ".to_vec();
        huge.extend(std::iter::repeat_n(b'x', MAX_EVENT_BYTES));
        let split: Vec<Vec<u8>> = huge.chunks(4096).map(<[u8]>::to_vec).collect();
        let read: Vec<_> = bounded_events(chunks(split)).collect().await;
        assert!(matches!(read.last(), Some(Err(BoundedError::TooLarge))), "an event without end is cut off");
        // CRLF line ends count the same.
        let crlf = b"data: x\r\n\r\n".repeat(300_000);
        let read: Vec<_> = bounded_events(chunks(vec![crlf])).collect().await;
        assert!(read.iter().all(Result::is_ok));
    }
}
