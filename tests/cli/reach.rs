//! Opening a table served to this computer only to the network while it runs, and closing it
//! again: before, nothing answers on the network address; once opened, a page there joins with
//! its link (and only with one); once closed, the port answers nobody and every connection from
//! another computer ends, while this computer's play on.

use crate::serve::{closed, start, Client};
use serde_json::json;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream, UdpSocket};
use std::time::Duration;

/// This machine's address on its default route's network (connecting a UDP socket sends nothing).
fn network_ip() -> IpAddr {
    let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).unwrap();
    socket.connect((Ipv4Addr::new(192, 0, 2, 1), 9)).expect("this test needs a network route (any default route)");
    let ip = socket.local_addr().unwrap().ip();
    assert!(!ip.is_loopback() && !ip.is_unspecified(), "this test needs a network address, not {ip}");
    ip
}

fn answers(addr: SocketAddr) -> bool {
    TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_ok()
}

#[test]
fn the_gm_opens_the_table_to_the_network_and_closes_it_again_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.houserule").display().to_string();
    crate::support::json(&["new", &file, "--ruleset", "generic"], 0, "new");
    let server = start(&file);
    let port: u16 = server.addr.rsplit_once(':').unwrap().1.parse().unwrap();
    let lan = SocketAddr::new(network_ip(), port);
    let mut gm = Client::gm(&server);
    let mut bo = Client::player(&server, &mut gm, "bo");

    let before = gm.call("hosting", json!({}));
    assert_eq!(
        (before["reach"].as_str(), before["switchable"].as_bool()),
        (Some("this_computer"), Some(true)),
        "{before}"
    );
    assert!(!answers(lan), "nothing answers on {lan} before the GM opens the table");
    assert_eq!(Client::error_code(&bo.call("host_reach", json!({"reach": "network"}))), "forbidden", "the GM's");

    let open = gm.call("host_reach", json!({"reach": "network"}));
    assert_eq!(open["url"], format!("http://{lan}/"), "players are sent to the network address: {open}");
    assert_eq!(open["reach"], "network", "{open}");
    assert_eq!(open["also"], json!([format!("http://{}/", server.addr)]), "{open}");

    // A page on the network joins with its link, and only with one.
    let link = gm.call("invite", json!({"player": "ann"}));
    let mut ann = Client::connect_at(&lan.to_string());
    let wrong = ann.call("hello", json!({"invite": "0".repeat(40)}));
    assert_eq!(Client::error_code(&wrong), "forbidden", "a link still needs its token: {wrong}");
    let hello = ann.call("hello", json!({"invite": link["token"]}));
    assert_eq!(hello["role"], "player:ann", "{hello}");
    let connected = gm.call("hosting", json!({}))["connected"].clone();
    let from_lan = connected.as_array().unwrap().iter().find(|v| v["who"] == "player:ann").cloned().unwrap();
    assert_eq!(from_lan["from"], lan.ip().to_string(), "{connected}");
    assert_eq!(bo.call("hello", json!({}))["role"], "player:bo", "opening dropped nobody");

    let shut = gm.call("host_reach", json!({"reach": "this_computer"}));
    assert_eq!(
        (shut["reach"].as_str(), shut["url"].as_str()),
        (Some("this_computer"), Some(&*format!("http://{}/", server.addr))),
        "{shut}"
    );
    assert!(!answers(lan), "the network port answers nobody once closed");
    assert_eq!(closed(&mut ann), (4003, "the GM closed the table to other computers".to_string()));
    assert_eq!(bo.call("hello", json!({}))["role"], "player:bo", "this computer plays on");
    assert_eq!(gm.call("hello", json!({}))["role"], "gm");
    let left = gm.call("hosting", json!({}));
    assert!(!left.to_string().contains("player:ann"), "{left}");

    // Opened again, the same port serves the network once more.
    let again = gm.call("host_reach", json!({"reach": "network"}));
    assert_eq!(again["url"], format!("http://{lan}/"), "{again}");
    assert!(answers(lan));
}
