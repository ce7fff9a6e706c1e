package mcp.gateway.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A pipe inside one process: what is written to {@link #output()} is read from {@link #input()}. Unlike the JDK's
 * piped streams it does not fail when the thread that last wrote has ended (the server side writes from whichever
 * thread finished a call), and closing the output ends the input after what was written.
 */
public final class LinePipe {

    private static final byte[] END = new byte[0];

    private final LinkedBlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>();
    private volatile boolean closed;

    /** @return the writing end; closing it ends the reading end once it has read everything */
    public OutputStream output() {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                if (closed) {
                    throw new IOException("the pipe is closed");
                }
                if (length > 0) {
                    chunks.add(Arrays.copyOfRange(bytes, offset, offset + length));
                }
            }

            @Override
            public void close() {
                if (!closed) {
                    closed = true;
                    chunks.add(END);
                }
            }
        };
    }

    /** @return the reading end */
    public InputStream input() {
        return new InputStream() {
            private byte[] current = new byte[0];
            private int position;
            private boolean ended;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] bytes, int offset, int length) throws IOException {
                if (length == 0) {
                    return 0;
                }
                while (position == current.length) {
                    if (ended) {
                        return -1;
                    }
                    try {
                        current = chunks.take();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("interrupted while reading the pipe");
                    }
                    position = 0;
                    if (current == END) {
                        ended = true;
                        chunks.add(END);
                    }
                }
                int n = Math.min(length, current.length - position);
                System.arraycopy(current, position, bytes, offset, n);
                position += n;
                return n;
            }
        };
    }
}
