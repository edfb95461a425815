//! Streamable HTTP sessions, at most a fixed number alive. rmcp's in-memory session manager
//! keeps every session until it has been idle for its keep-alive time; this one also closes
//! the least recently used session when a new one would pass the cap. A closed session's
//! worker ends and everything it held is dropped; its client's next request gets 404
//! "Session not found", which tells an MCP client to start a new session with `initialize`.

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// rmcp's local sessions, at most `max` of them.
#[derive(Debug)]
pub struct BoundedSessions {
    inner: LocalSessionManager,
    max: usize,
    use_order: Mutex<UseOrder>,
    /// A session has closed since [`BoundedSessions::take_closed`] was last called.
    closed: AtomicBool,
}

/// When each live session was last used (a counter), and how many are being created.
#[derive(Debug, Default)]
struct UseOrder {
    tick: u64,
    last_use: HashMap<SessionId, u64>,
    creating: usize,
}

impl UseOrder {
    fn touch(&mut self, id: &SessionId) {
        self.tick += 1;
        if let Some(last) = self.last_use.get_mut(id) {
            *last = self.tick;
        }
    }
}

impl BoundedSessions {
    /// At most `max` sessions, each closed after `idle` without a request.
    pub fn new(max: usize, idle: Duration) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        BoundedSessions {
            inner,
            max: max.max(1),
            use_order: Mutex::new(UseOrder::default()),
            closed: AtomicBool::new(false),
        }
    }

    /// Whether a session has closed since the last call.
    pub fn take_closed(&self) -> bool {
        self.closed.swap(false, Ordering::Relaxed)
    }

    /// How many sessions are alive.
    #[cfg(test)]
    pub fn live(&self) -> usize {
        self.use_order.lock().unwrap().last_use.len()
    }

    /// How many sessions rmcp holds.
    #[cfg(test)]
    pub async fn rmcp_live(&self) -> usize {
        self.inner.sessions.read().await.len()
    }
}

impl SessionManager for BoundedSessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let evicted = {
            let mut order = self.use_order.lock().unwrap();
            let evicted = if order.last_use.len() + order.creating >= self.max {
                let oldest = order
                    .last_use
                    .iter()
                    .min_by_key(|(_, last)| **last)
                    .map(|(id, _)| id.clone());
                if let Some(id) = &oldest {
                    order.last_use.remove(id);
                }
                oldest
            } else {
                None
            };
            order.creating += 1;
            evicted
        };
        if let Some(id) = evicted {
            let _ = self.inner.close_session(&id).await;
            self.closed.store(true, Ordering::Relaxed);
        }
        let created = self.inner.create_session().await;
        let mut order = self.use_order.lock().unwrap();
        order.creating -= 1;
        if let Ok((id, _)) = &created {
            order.tick += 1;
            let tick = order.tick;
            order.last_use.insert(id.clone(), tick);
        }
        created
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.use_order.lock().unwrap().touch(id);
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.use_order.lock().unwrap().last_use.remove(id);
        self.closed.store(true, Ordering::Relaxed);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id).await
    }
}
