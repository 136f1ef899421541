import { render } from "preact";
import { App } from "./app";
import { Store } from "./store";
import "./style.css";

const store = new Store();
render(<App store={store} />, document.getElementById("app")!);
