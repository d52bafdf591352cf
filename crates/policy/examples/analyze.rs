//! Prints what the analysis reads in a command: `cargo run -p ccwire-policy --example analyze -- 'ls | wc'`.
#![allow(clippy::print_stdout)]
fn main() {
    for command in std::env::args().skip(1) {
        println!("{:#?}", ccwire_policy::shell::analyze(&command));
    }
}
