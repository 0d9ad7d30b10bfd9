//! launch
