//! Layout geometry over the server's split trees: pure functions from a `Layout` and an area
//! to cell rectangles, dividers, hit-tests and directional neighbours.
