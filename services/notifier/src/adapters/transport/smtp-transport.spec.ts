// Proves the SMTP transport never sends a code in clear: against a local SMTP
// server that offers no STARTTLS, an smtp:// transport refuses to deliver and
// the server never receives the message body.
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { SmtpTransport } from './smtp-transport';

/** A minimal SMTP server without STARTTLS that records every line it receives. */
function plainSmtpServer(received: string[], sockets: Set<Socket>): Promise<Server> {
  const server = createServer((socket: Socket) => {
    sockets.add(socket);
    socket.write('220 localhost ESMTP test\r\n');
    socket.on('data', (chunk) => {
      for (const line of chunk.toString('utf8').split('\r\n').filter(Boolean)) {
        received.push(line);
        if (/^(EHLO|HELO)/i.test(line)) socket.write('250-localhost\r\n250 AUTH PLAIN\r\n');
        else if (/^QUIT/i.test(line)) socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('SmtpTransport', () => {
  it('refuses to deliver over a connection that cannot be upgraded to TLS', async () => {
    const received: string[] = [];
    const sockets = new Set<Socket>();
    const server = await plainSmtpServer(received, sockets);
    const { port } = server.address() as AddressInfo;
    const transport = new SmtpTransport({ url: `smtp://127.0.0.1:${port}`, from: 'no-reply@example.net' });
    try {
      await expect(
        transport.deliver({ messageId: 'm1', to: 'jane@example.com', subject: 'Code', text: 'Approval code: 424242' }),
      ).rejects.toThrow();
      expect(received.join('\n')).not.toContain('424242');
      expect(received.some((line) => /^MAIL FROM/i.test(line))).toBe(false);
    } finally {
      transport.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
