//! `fake-claude`: a scripted stand-in for the `claude` CLI (see the `ccwire_testkit` docs).

fn main() {
    std::process::exit(ccwire_testkit::run_fake_claude());
}
