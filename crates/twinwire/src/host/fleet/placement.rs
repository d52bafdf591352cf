//! Where a session goes: the [`Placement`] trait a scheduler implements, and [`LeastLoaded`],
//! the default, with a per-tenant limit.

/// One host as placement sees it: its load now, and the asking tenant's share of it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HostLoad {
    /// The host's name.
    pub name: String,
    /// Whether its last health check passed. A host that is down never takes a session: the
    /// fleet refuses a placement on it.
    pub healthy: bool,
    /// Sessions placed on it now.
    pub sessions: usize,
    /// The most sessions it takes.
    pub capacity: usize,
    /// The asking tenant's sessions on it.
    pub tenant_sessions: usize,
}

impl HostLoad {
    /// Whether it can take one more session.
    pub fn has_room(&self) -> bool {
        self.healthy && self.sessions < self.capacity
    }
}

/// What placement is asked: who wants a session, and where it must not go.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PlacementRequest<'a> {
    /// The tenant the session is for.
    pub tenant: &'a str,
    /// The tenant's sessions in the whole fleet, this one not counted.
    pub tenant_total: usize,
    /// The session's id.
    pub session_id: &'a str,
    /// The host the session is moving from, when it is moving.
    pub moving_from: Option<&'a str>,
}

/// Chooses a host for a session. The fleet calls it with every host's load (in the fleet's
/// order) and places the session on the index returned, or refuses the session with the reason
/// given. A scheduler of its own (a cluster's, a cost model) replaces [`LeastLoaded`] here; the
/// fleet still refuses a host that is down or full, whatever the placement says.
pub trait Placement: Send + Sync + 'static {
    /// The index of the host, or why none will do.
    fn place(&self, request: &PlacementRequest<'_>, hosts: &[HostLoad]) -> Result<usize, String>;
}

/// The healthy host with the lowest share of its capacity in use (ties: fewer of the
/// tenant's sessions, then the fleet's order); with [`per_tenant`](Self::per_tenant), a
/// tenant at its limit is refused.
#[derive(Debug, Clone, Default)]
pub struct LeastLoaded {
    per_tenant: Option<usize>,
}

impl LeastLoaded {
    /// No per-tenant limit.
    pub fn new() -> Self {
        Self::default()
    }

    /// At most `limit` sessions per tenant across the fleet.
    #[must_use]
    pub fn per_tenant(mut self, limit: usize) -> Self {
        self.per_tenant = Some(limit);
        self
    }
}

impl Placement for LeastLoaded {
    fn place(&self, request: &PlacementRequest<'_>, hosts: &[HostLoad]) -> Result<usize, String> {
        if let Some(limit) = self.per_tenant {
            if request.tenant_total >= limit {
                return Err(format!(
                    "tenant `{}` has {} sessions, its limit",
                    request.tenant, request.tenant_total
                ));
            }
        }
        hosts
            .iter()
            .enumerate()
            .filter(|(_, host)| host.has_room())
            // Compared as sessions × other's capacity: no floats, exact.
            .min_by(|(_, a), (_, b)| {
                (a.sessions * b.capacity)
                    .cmp(&(b.sessions * a.capacity))
                    .then(a.tenant_sessions.cmp(&b.tenant_sessions))
            })
            .map(|(index, _)| index)
            .ok_or_else(|| {
                let healthy = hosts.iter().filter(|h| h.healthy).count();
                format!(
                    "no host can take a session: {healthy} of {} healthy, all of them full",
                    hosts.len()
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(name: &str, sessions: usize, capacity: usize, healthy: bool) -> HostLoad {
        HostLoad {
            name: name.into(),
            healthy,
            sessions,
            capacity,
            tenant_sessions: 0,
        }
    }

    fn request(tenant_total: usize) -> PlacementRequest<'static> {
        PlacementRequest {
            tenant: "acme",
            tenant_total,
            session_id: "s",
            moving_from: None,
        }
    }

    #[test]
    fn the_least_loaded_healthy_host_with_room_is_chosen() {
        let hosts = [
            load("a", 1, 4, true),
            load("b", 0, 4, false),
            load("c", 2, 16, true),
            load("d", 0, 0, true),
        ];
        assert_eq!(LeastLoaded::new().place(&request(0), &hosts), Ok(2));
    }

    #[test]
    fn ties_go_to_fewer_of_the_tenants_sessions_then_the_first() {
        let mut hosts = [load("a", 1, 4, true), load("b", 1, 4, true)];
        assert_eq!(LeastLoaded::new().place(&request(0), &hosts), Ok(0));
        hosts[0].tenant_sessions = 1;
        assert_eq!(LeastLoaded::new().place(&request(1), &hosts), Ok(1));
    }

    #[test]
    fn a_tenant_at_its_limit_and_a_full_fleet_are_refused() {
        let hosts = [load("a", 0, 4, true)];
        let err = LeastLoaded::new()
            .per_tenant(2)
            .place(&request(2), &hosts)
            .unwrap_err();
        assert!(err.contains("its limit"), "{err}");
        let full = [load("a", 4, 4, true), load("b", 0, 4, false)];
        let err = LeastLoaded::new().place(&request(0), &full).unwrap_err();
        assert!(err.contains("1 of 2 healthy"), "{err}");
    }
}
