//! signaltty's web client: `signaltty web` serves the built page and the server's own API to
//! browsers, as gRPC-web, over one trusted connection to the server's Unix socket.
//!
//! - [`token`]: the tokens (random, stored hashed, revocable, read-only or full);
//! - [`guard`]: every request's `Host`, `Origin` and cookie;
//! - [`policy`]: which calls the web may make with which token;
//! - [`proxy`]: gRPC-web in (tonic-web), gRPC out to the server, no second API;
//! - [`revocable`]: streaming answers end when their token is revoked;
//! - [`page`]: the page from `web/dist/`, embedded;
//! - [`serve`]: the routes;
//! - [`command`]: what `signaltty web` does (bind, token, URL, serve).

pub mod command;
pub mod guard;
pub mod page;
pub mod policy;
pub mod proxy;
pub mod revocable;
pub mod serve;
pub mod token;
