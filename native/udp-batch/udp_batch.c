/*
 * udp_batch: a connected UDP socket that sends and receives datagrams in batches
 * (sendmmsg / recvmmsg, Linux), for the bulk DNS resolver.
 *
 * Node's dgram costs a JavaScript call, a microtask checkpoint, a fresh buffer and an rinfo
 * object per datagram received, and a send request per datagram sent. Here the socket's
 * readiness is watched by the event loop (uv_poll), every datagram waiting is read with
 * recvmmsg into slots of one buffer that JavaScript owns, and JavaScript is called once per
 * batch with the count; the lengths go into an Int32Array it also owns. Queries written into
 * one buffer leave with one sendmmsg.
 *
 * The socket is connected: the kernel drops datagrams from any other peer. Nothing here
 * decides where to connect; the caller passes an address already checked by the egress guard.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#define MAX_BATCH 1024

typedef struct {
  uv_poll_t poll;
  int fd;
  int is_polling;
  int is_closed;
  int is_poll_released;
  int is_finalized;
  napi_env env;
  napi_ref on_batch;
  napi_ref receive_buffer;
  napi_ref lengths_array;
  napi_async_context async_context;
  char *slots;
  size_t slot_size;
  unsigned slot_count;
  int32_t *lengths;
  struct mmsghdr *messages;
  struct iovec *vectors;
} channel_t;

static napi_value throw_errno(napi_env env, const char *what, int code) {
  char text[256];
  snprintf(text, sizeof text, "%s: %s", what, strerror(code));
  napi_throw_error(env, NULL, text);
  return NULL;
}

#define CHECK(call)                                                    \
  do {                                                                 \
    if ((call) != napi_ok) {                                           \
      const napi_extended_error_info *info = NULL;                     \
      napi_get_last_error_info(env, &info);                            \
      bool pending = false;                                            \
      napi_is_exception_pending(env, &pending);                        \
      if (!pending)                                                    \
        napi_throw_error(env, NULL, info && info->error_message ? info->error_message : "udp_batch: N-API call failed"); \
      return NULL;                                                     \
    }                                                                  \
  } while (0)

static channel_t *channel_of(napi_env env, napi_value value) {
  channel_t *channel = NULL;
  if (napi_get_value_external(env, value, (void **)&channel) != napi_ok || channel == NULL) {
    napi_throw_type_error(env, NULL, "udp_batch: not a channel");
    return NULL;
  }
  if (channel->is_closed) {
    napi_throw_error(env, NULL, "udp_batch: the channel is closed");
    return NULL;
  }
  return channel;
}

/* The arguments of a call whose first is a channel; NULL (with an exception pending) when it is not an open one. */
static channel_t *channel_call(napi_env env, napi_callback_info info, size_t count, napi_value *argv) {
  size_t argc = count;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) {
    napi_throw_error(env, NULL, "udp_batch: could not read the arguments");
    return NULL;
  }
  if (argc < count) {
    napi_throw_type_error(env, NULL, "udp_batch: missing arguments");
    return NULL;
  }
  return channel_of(env, argv[0]);
}

static void release_receive(channel_t *channel) {
  napi_env env = channel->env;
  if (channel->on_batch) napi_delete_reference(env, channel->on_batch);
  if (channel->receive_buffer) napi_delete_reference(env, channel->receive_buffer);
  if (channel->lengths_array) napi_delete_reference(env, channel->lengths_array);
  if (channel->async_context) napi_async_destroy(env, channel->async_context);
  channel->on_batch = channel->receive_buffer = channel->lengths_array = NULL;
  channel->async_context = NULL;
  free(channel->messages);
  free(channel->vectors);
  channel->messages = NULL;
  channel->vectors = NULL;
}

/* The struct lives until both the socket is closed (its poll handle released) and the external is collected. */
static void free_when_done(channel_t *channel) {
  if (channel->is_finalized && (!channel->is_polling || channel->is_poll_released)) free(channel);
}

static void on_poll_closed(uv_handle_t *handle) {
  channel_t *channel = (channel_t *)handle->data;
  close(channel->fd);
  channel->is_poll_released = 1;
  free_when_done(channel);
}

static void close_channel(channel_t *channel) {
  if (channel->is_closed) return;
  channel->is_closed = 1;
  release_receive(channel);
  if (channel->is_polling) {
    uv_poll_stop(&channel->poll);
    uv_close((uv_handle_t *)&channel->poll, on_poll_closed);
  } else {
    close(channel->fd);
  }
}

/* A channel dropped without close() is closed when it is collected. */
static void finalize_channel(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  channel_t *channel = (channel_t *)data;
  close_channel(channel);
  channel->is_finalized = 1;
  free_when_done(channel);
}

/* Reads every datagram waiting, a batch at a time, and hands each batch to JavaScript. */
static void on_readable(uv_poll_t *handle, int status, int events) {
  channel_t *channel = (channel_t *)handle->data;
  (void)events;
  if (status < 0 || channel->is_closed) return;
  napi_env env = channel->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  for (;;) {
    /* The headers were set up once (js_receive): the kernel writes only msg_len and msg_flags. */
    int count = recvmmsg(channel->fd, channel->messages, channel->slot_count, MSG_DONTWAIT, NULL);
    if (count < 0) {
      /* ICMP errors of a connected socket (port unreachable) surface here: the query times out. */
      if (errno == EINTR || errno == ECONNREFUSED) continue;
      break;
    }
    if (count == 0) break;
    for (int i = 0; i < count; i += 1) {
      /* A datagram larger than its slot was cut: -1 tells JavaScript to drop it. */
      channel->lengths[i] = (channel->messages[i].msg_hdr.msg_flags & MSG_TRUNC) ? -1 : (int32_t)channel->messages[i].msg_len;
    }
    napi_value callback, receiver, argument, result;
    if (napi_get_reference_value(env, channel->on_batch, &callback) != napi_ok || callback == NULL) break;
    napi_get_global(env, &receiver);
    napi_create_int32(env, count, &argument);
    napi_status call = napi_make_callback(env, channel->async_context, receiver, callback, 1, &argument, &result);
    if (call == napi_pending_exception) {
      napi_value error;
      napi_get_and_clear_last_exception(env, &error);
      napi_fatal_exception(env, error);
      break;
    }
    if (channel->is_closed || (unsigned)count < channel->slot_count) break;
  }
  napi_close_handle_scope(env, scope);
}

/* open(family: 4 | 6, receiveBufferSize: number): channel */
static napi_value js_open(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t family = 4, receive_size = 0;
  CHECK(napi_get_value_int32(env, argv[0], &family));
  CHECK(napi_get_value_int32(env, argv[1], &receive_size));
  int fd = socket(family == 6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, "socket", errno);
  if (receive_size > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_size, sizeof receive_size);
  channel_t *channel = calloc(1, sizeof(channel_t));
  if (channel == NULL) {
    close(fd);
    return throw_errno(env, "udp_batch", ENOMEM);
  }
  channel->fd = fd;
  channel->env = env;
  napi_value external;
  if (napi_create_external(env, channel, finalize_channel, NULL, &external) != napi_ok) {
    close(fd);
    free(channel);
    napi_throw_error(env, NULL, "udp_batch: could not create the channel");
    return NULL;
  }
  return external;
}

/* connect(channel, address: string (numeric), port: number) */
static napi_value js_connect(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  channel_t *channel = channel_call(env, info, 3, argv);
  if (channel == NULL) return NULL;
  char address[64];
  size_t length = 0;
  int32_t port = 0;
  CHECK(napi_get_value_string_utf8(env, argv[1], address, sizeof address, &length));
  CHECK(napi_get_value_int32(env, argv[2], &port));
  struct sockaddr_storage peer;
  socklen_t peer_length;
  memset(&peer, 0, sizeof peer);
  struct sockaddr_in *v4 = (struct sockaddr_in *)&peer;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&peer;
  if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    peer_length = sizeof *v4;
  } else if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    peer_length = sizeof *v6;
  } else {
    napi_throw_type_error(env, NULL, "udp_batch: the address is not a numeric IPv4 or IPv6 address");
    return NULL;
  }
  if (connect(channel->fd, (struct sockaddr *)&peer, peer_length) != 0) return throw_errno(env, "connect", errno);
  return NULL;
}

/*
 * send(channel, buffer: Buffer, ends: Uint32Array, count: number): number
 * Sends `count` datagrams laid end to end in `buffer` (datagram i ends at ends[i]); answers how
 * many the kernel took (fewer when its send buffer is full: the caller keeps the rest).
 */
static napi_value js_send(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  channel_t *channel = channel_call(env, info, 4, argv);
  if (channel == NULL) return NULL;
  char *data = NULL;
  size_t data_length = 0;
  CHECK(napi_get_buffer_info(env, argv[1], (void **)&data, &data_length));
  napi_typedarray_type type;
  size_t ends_length = 0;
  void *ends_data = NULL;
  CHECK(napi_get_typedarray_info(env, argv[2], &type, &ends_length, &ends_data, NULL, NULL));
  int32_t count = 0;
  CHECK(napi_get_value_int32(env, argv[3], &count));
  if (type != napi_uint32_array || count < 0 || (size_t)count > ends_length || count > MAX_BATCH) {
    napi_throw_range_error(env, NULL, "udp_batch: bad batch");
    return NULL;
  }
  const uint32_t *ends = (const uint32_t *)ends_data;
  struct mmsghdr messages[MAX_BATCH];
  struct iovec vectors[MAX_BATCH];
  uint32_t start = 0;
  for (int32_t i = 0; i < count; i += 1) {
    if (ends[i] < start || ends[i] > data_length) {
      napi_throw_range_error(env, NULL, "udp_batch: a datagram lies outside the buffer");
      return NULL;
    }
    vectors[i].iov_base = data + start;
    vectors[i].iov_len = ends[i] - start;
    memset(&messages[i].msg_hdr, 0, sizeof(struct msghdr));
    messages[i].msg_hdr.msg_iov = &vectors[i];
    messages[i].msg_hdr.msg_iovlen = 1;
    start = ends[i];
  }
  int sent = 0;
  while (sent < count) {
    int n = sendmmsg(channel->fd, messages + sent, (unsigned)(count - sent), MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      /* An ICMP error reported on a connected socket: that datagram is counted as sent and lost (it times out). */
      if (errno == ECONNREFUSED) {
        sent += 1;
        continue;
      }
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) break;
      return throw_errno(env, "sendmmsg", errno);
    }
    sent += n;
  }
  napi_value result;
  CHECK(napi_create_int32(env, sent, &result));
  return result;
}

/*
 * receive(channel, buffer: Buffer, slotSize: number, lengths: Int32Array, onBatch: (count) => void)
 * Starts reading: datagram i of a batch lies at i * slotSize in `buffer`, its length in
 * lengths[i] (-1 when it did not fit). The buffer is written over by the next batch.
 */
static napi_value js_receive(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  channel_t *channel = channel_call(env, info, 5, argv);
  if (channel == NULL) return NULL;
  if (channel->is_polling) {
    napi_throw_error(env, NULL, "udp_batch: already receiving");
    return NULL;
  }
  char *data = NULL;
  size_t data_length = 0;
  CHECK(napi_get_buffer_info(env, argv[1], (void **)&data, &data_length));
  int32_t slot_size = 0;
  CHECK(napi_get_value_int32(env, argv[2], &slot_size));
  napi_typedarray_type type;
  size_t lengths_count = 0;
  void *lengths = NULL;
  CHECK(napi_get_typedarray_info(env, argv[3], &type, &lengths_count, &lengths, NULL, NULL));
  napi_valuetype callback_type;
  CHECK(napi_typeof(env, argv[4], &callback_type));
  if (slot_size < 512 || type != napi_int32_array || callback_type != napi_function) {
    napi_throw_type_error(env, NULL, "udp_batch: bad receive arguments");
    return NULL;
  }
  size_t slots = data_length / (size_t)slot_size;
  if (slots > lengths_count) slots = lengths_count;
  if (slots > MAX_BATCH) slots = MAX_BATCH;
  if (slots == 0) {
    napi_throw_range_error(env, NULL, "udp_batch: the receive buffer holds no slot");
    return NULL;
  }
  channel->slots = data;
  channel->slot_size = (size_t)slot_size;
  channel->slot_count = (unsigned)slots;
  channel->lengths = (int32_t *)lengths;
  channel->messages = calloc(slots, sizeof(struct mmsghdr));
  channel->vectors = calloc(slots, sizeof(struct iovec));
  if (channel->messages == NULL || channel->vectors == NULL) {
    release_receive(channel);
    return throw_errno(env, "udp_batch", ENOMEM);
  }
  for (size_t i = 0; i < slots; i += 1) {
    channel->vectors[i].iov_base = data + i * (size_t)slot_size;
    channel->vectors[i].iov_len = (size_t)slot_size;
    channel->messages[i].msg_hdr.msg_iov = &channel->vectors[i];
    channel->messages[i].msg_hdr.msg_iovlen = 1;
  }
  CHECK(napi_create_reference(env, argv[1], 1, &channel->receive_buffer));
  CHECK(napi_create_reference(env, argv[3], 1, &channel->lengths_array));
  CHECK(napi_create_reference(env, argv[4], 1, &channel->on_batch));
  napi_value name;
  CHECK(napi_create_string_utf8(env, "UDPBATCH", NAPI_AUTO_LENGTH, &name));
  CHECK(napi_async_init(env, NULL, name, &channel->async_context));
  uv_loop_t *loop = NULL;
  CHECK(napi_get_uv_event_loop(env, &loop));
  int code = uv_poll_init(loop, &channel->poll, channel->fd);
  if (code != 0) {
    release_receive(channel);
    napi_throw_error(env, NULL, uv_strerror(code));
    return NULL;
  }
  channel->poll.data = channel;
  channel->is_polling = 1;
  code = uv_poll_start(&channel->poll, UV_READABLE, on_readable);
  if (code != 0) {
    napi_throw_error(env, NULL, uv_strerror(code));
    return NULL;
  }
  return NULL;
}

/* close(channel): stops reading and closes the socket; the channel cannot be used again. */
static napi_value js_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  channel_t *channel = NULL;
  if (napi_get_value_external(env, argv[0], (void **)&channel) != napi_ok || channel == NULL) return NULL;
  close_channel(channel);
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"open", NULL, js_open, NULL, NULL, NULL, napi_default, NULL},
      {"connect", NULL, js_connect, NULL, NULL, NULL, napi_default, NULL},
      {"send", NULL, js_send, NULL, NULL, NULL, napi_default, NULL},
      {"receive", NULL, js_receive, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, js_close, NULL, NULL, NULL, napi_default, NULL},
  };
  if (napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
