// Preloaded by the tests into Node programs that serve HTTP (node --require ./loopback.cjs ...): the
// reference servers and the conformance suite's scenario servers listen on every interface; this makes
// every listen(port, ...) bind 127.0.0.1 only.
//
// Node resolves a listen host with dns.lookup, asynchronously, even for an IP literal; programs that
// read server.address() right after listen() (the conformance suite does) need the bind to happen at
// once, as it does without a host. So the lookup of the literal 127.0.0.1 answers synchronously.
'use strict';
const net = require('net');
const dns = require('dns');

const LOOPBACK = '127.0.0.1';
const lookup = dns.lookup;
dns.lookup = function (hostname, options, callback) {
  if (hostname === LOOPBACK) {
    const done = typeof options === 'function' ? options : callback;
    if (options && typeof options === 'object' && options.all) {
      done(null, [{ address: LOOPBACK, family: 4 }]);
    } else {
      done(null, LOOPBACK, 4);
    }
    return {};
  }
  return lookup.apply(this, arguments);
};

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    // (port[, host][, backlog][, callback]): keep the port and the callback, force the host.
    const callback = args.find((a) => typeof a === 'function');
    return callback ? listen.call(this, Number(first), LOOPBACK, callback) : listen.call(this, Number(first), LOOPBACK);
  }
  if (first && typeof first === 'object' && !Array.isArray(first) && 'port' in first) {
    return listen.call(this, { ...first, host: LOOPBACK }, ...args.slice(1));
  }
  return listen.apply(this, args);
};
