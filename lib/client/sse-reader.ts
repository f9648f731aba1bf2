/**
 * Reads a `text/event-stream` body into events (the WHATWG EventSource rules the client needs:
 * `data:` lines joined with newlines, `event:` and `id:` fields, comments and `retry:` ignored).
 * Streamable HTTP sends one JSON-RPC message per `message` event.
 */
export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffered = '';
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  const reader = body.getReader();
  try {
    while (true) {
      const { value, done } = await reader.read();
      buffered += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      while (true) {
        const end = buffered.slice(start).search(/\r\n|\r|\n/);
        if (end === -1) break;
        const line = buffered.slice(start, start + end);
        start += end + (buffered.startsWith('\r\n', start + end) ? 2 : 1);
        if (line === '') {
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id };
          data = [];
          event = '';
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let text = colon === -1 ? '' : line.slice(colon + 1);
        if (text.startsWith(' ')) text = text.slice(1);
        if (field === 'data') data.push(text);
        else if (field === 'event') event = text;
        else if (field === 'id') id = text;
      }
      buffered = buffered.slice(start);
      if (done) break;
    }
    if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id };
  } finally {
    reader.releaseLock();
  }
}
