//! `fake-claude`: a scripted stand-in for the `claude` CLI (see the `twinwire_testkit` docs).

fn main() {
    std::process::exit(twinwire_testkit::run_fake_claude());
}
