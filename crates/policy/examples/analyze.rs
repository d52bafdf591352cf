//! Prints what the analysis reads in a command: `cargo run -p twinwire-policy --example analyze -- 'ls | wc'`.
#![allow(clippy::print_stdout)]
fn main() {
    for command in std::env::args().skip(1) {
        println!("{:#?}", twinwire_policy::shell::analyze(&command));
    }
}
