-- wrk script: every request is a fresh webhook delivery (unique event id) signed like the service signs,
-- HMAC-SHA256 of "<t>.<body>", computed by OpenSSL through LuaJIT's FFI so the generator stays cheap.
-- Arguments after `--`: secret, event id prefix, body size in bytes. Prints one JSON line of results at the end.
-- Driven by bench/receiver.ts; needs LuaJIT (wrk has it) and OpenSSL's libcrypto.
local ffi = require("ffi")
ffi.cdef [[
const void *EVP_sha256(void);
unsigned char *HMAC(const void *md, const void *key, int key_len, const unsigned char *data, size_t data_len,
                    unsigned char *out, unsigned int *out_len);
]]
local ok, crypto = pcall(ffi.load, "crypto")
if not ok then crypto = ffi.load("libcrypto.so.3") end

-- Each wrk thread gets its own id, so event ids stay unique across threads.
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("thread_id", counter)
end

local secret, prefix, padding, created_at, path
local digest = ffi.new("unsigned char[32]")
local digest_len = ffi.new("unsigned int[1]")
local hex = {}
for i = 0, 255 do hex[i] = string.format("%02x", i) end
local parts = {}
local sequence = 0

function init(args)
  secret = args[1]
  prefix = args[2] .. "_" .. tostring(thread_id) .. "_"
  local body_bytes = tonumber(args[3])
  created_at = os.date("!%Y-%m-%dT%H:%M:%S.000Z")
  local skeleton = string.format(
    '{"id":"%s%08d","type":"test","createdAt":"%s","apiVersion":"v1","data":{"webhookId":"wh_bench","note":""}}',
    prefix, 0, created_at)
  padding = string.rep("x", math.max(0, body_bytes - #skeleton))
  path = wrk.path
end

function request()
  sequence = sequence + 1
  local body = string.format(
    '{"id":"%s%08d","type":"test","createdAt":"%s","apiVersion":"v1","data":{"webhookId":"wh_bench","note":"%s"}}',
    prefix, sequence, created_at, padding)
  local t = tostring(os.time())
  local signed = t .. "." .. body
  crypto.HMAC(crypto.EVP_sha256(), secret, #secret, signed, #signed, digest, digest_len)
  for i = 0, 31 do parts[i + 1] = hex[digest[i]] end
  return wrk.format("POST", path, {
    ["Content-Type"] = "application/json",
    ["Service-Signature"] = "t=" .. t .. ",v1=" .. table.concat(parts),
  }, body)
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"non2xx":%d,"socketErrors":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d}\n',
    summary.requests, summary.duration, errors.status, errors.connect + errors.read + errors.write + errors.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
