import { render } from "preact";
import { App } from "./app";
import { Store } from "./store";
import "./styles/base.css";
import "./styles/screens.css";
import "./styles/board.css";
import "./styles/log.css";
import "./styles/gm.css";

const store = new Store();
render(<App store={store} />, document.getElementById("app")!);
