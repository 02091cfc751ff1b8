import ClientOnly from "./ClientOnly";

export default function Home() {
  return <ClientOnly />;
}
